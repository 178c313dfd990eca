"""table: the markdown tables the side-by-side scripts print and write (--out), so
they can be pasted into docs/benchmarks.md as they are."""


def emit(header, columns, align, rows, out=None, footer=""):
    """Prints `header`, a table of `rows` under `columns` (`align`: one of
    "l"/"r" per column) and `footer`; writes the same to `out` if given."""
    table = ["| " + " | ".join(columns) + " |",
             "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    table += ["| " + " | ".join(row) + " |" for row in rows]
    text = header + "\n\n" + "\n".join(table) + "\n" + footer
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text)
    return text
