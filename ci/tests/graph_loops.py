"""Loops in a dependency graph, for the tests that keep the tools' imports
(test_import_graph.py) and the fixtures' includes (test_include_graph.py)
free of them."""


def cycles(edges):
    """Every loop of EDGES ({node: {nodes it uses}}), each as [a, b, ..., a],
    one per strongly connected group (Tarjan's algorithm)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(loop_through(sorted(group), edges))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def loop_through(group, edges):
    """One loop inside GROUP, from its first member back to it (breadth-first)."""
    start, members = group[0], set(group)
    paths, seen = [[start]], {start}
    while paths:
        path = paths.pop(0)
        for target in sorted(set(edges.get(path[-1], ())) & members):
            if target == start:
                return [*path, start]
            if target not in seen:
                seen.add(target)
                paths.append([*path, target])
    return group
