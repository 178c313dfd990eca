"""A small validator for the JSON Schema subset our schemas use (ci/tdc/
schemas/*.schema.json), so that the tools, which run on a bare python3,
check documents against the same files the self-tests check with Debian's
python3-jsonschema. Supported: type, enum, const, properties, required,
additionalProperties, items, minimum, maximum, pattern, minLength, $ref
into #/$defs. A keyword outside that set is refused, so a schema cannot
quietly say more than is checked."""
import math
import re

SUPPORTED = {"$schema", "$id", "$defs", "$ref", "title", "description", "type", "enum", "const",
             "properties", "required", "additionalProperties", "items", "minimum", "maximum",
             "pattern", "minLength"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def type_matches(value, name):
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return isinstance(value, TYPES[name])


def where(path):
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path) or "(top level)"


def errors(value, schema, root=None, path=()):
    """The first problem as 'where: what', or None."""
    check = _compiled(schema, root if root is not None else schema)
    problem = check(value)
    if problem is None:
        return None
    where_list, what = problem
    return f"{where(tuple(reversed(where_list)))}: {what}"


# A schema is compiled once into nested checks (closures) that return None
# or (reversed path, what): a fleet merge validates thousands of documents
# against the same few schemas, and interpreting a schema dict per value
# cost more than the rest of verifying a package. Keyed by id: the schemas
# are the loaded files' own dicts, alive for the process.
_cache = {}


def _compiled(schema, root):
    key = (id(schema), id(root))
    if key not in _cache:
        _cache[key] = None  # a recursive $ref sees the placeholder's cell below
        cell = []
        _cache[key] = lambda value: cell[0](value)
        cell.append(_compile(schema, root))
        _cache[key] = cell[0]
    return _cache[key]


def _compile(schema, root):
    unknown = set(schema) - SUPPORTED
    if unknown:
        raise ValueError(f"schema uses unsupported keyword(s) {sorted(unknown)}")
    if "$ref" in schema:
        target = root["$defs"][schema["$ref"].rsplit("/", 1)[-1]]
        return _compiled(target, root)
    checks = []
    wanted = schema.get("type")
    if wanted is not None:
        names = wanted if isinstance(wanted, list) else [wanted]
        plain = tuple(TYPES[n] for n in names if n in TYPES)

        def check_type(value, names=names):
            if not any(type_matches(value, n) for n in names):
                return [], f"{describe(value)}, expected {' or '.join(names)}"

        def check_plain_type(value):
            # type_matches for names without integer or number: isinstance alone
            # (bool is no int here), one call per value instead of a generator.
            if not isinstance(value, plain):
                return [], f"{describe(value)}, expected {' or '.join(names)}"
        checks.append(check_plain_type if len(plain) == len(names) else check_type)
    if "enum" in schema:
        enum = schema["enum"]
        checks.append(lambda value: None if value in enum else ([], f"{value!r} is not one of {enum}"))
    if "const" in schema:
        const = schema["const"]
        checks.append(lambda value: None if value == const else ([], f"{value!r}, expected {const!r}"))
    if "minimum" in schema or "maximum" in schema:
        low, high = schema.get("minimum"), schema.get("maximum")

        def check_range(value):
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if low is not None and value < low:
                    return [], f"{value} is below {low}"
                if high is not None and value > high:
                    return [], f"{value} is above {high}"
        checks.append(check_range)
    if "pattern" in schema or "minLength" in schema:
        pattern = re.compile(schema["pattern"]) if "pattern" in schema else None
        shortest = schema.get("minLength")

        def check_string(value):
            if isinstance(value, str):
                if pattern is not None and not pattern.search(value):
                    return [], f"{value[:80]!r} does not match {pattern.pattern}"
                if shortest is not None and len(value) < shortest:
                    return [], f"{value!r} is shorter than {shortest}"
        checks.append(check_string)
    if "required" in schema or "properties" in schema or "additionalProperties" in schema:
        required = schema.get("required", [])
        properties = {k: _compiled(v, root) for k, v in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        extra_check = _compiled(extra, root) if isinstance(extra, dict) else None

        def check_object(value):
            if not isinstance(value, dict):
                return None
            for key in required:
                if key not in value:
                    return [], f"no {key!r}"
            for key, inner in value.items():
                check = properties.get(key)
                if check is not None:
                    problem = check(inner)
                elif extra is False:
                    return [], f"unknown key {key!r}"
                elif extra_check is not None:
                    problem = extra_check(inner)
                else:
                    problem = None
                if problem:
                    problem[0].append(key)
                    return problem
        checks.append(check_object)
    if "items" in schema:
        item_check = _compiled(schema["items"], root)

        def check_items(value):
            if isinstance(value, list):
                for index, item in enumerate(value):
                    problem = item_check(item)
                    if problem:
                        problem[0].append(index)
                        return problem
        checks.append(check_items)

    if len(checks) == 1:
        return checks[0]

    def check(value):
        for one in checks:
            problem = one(value)
            if problem:
                return problem
        return None
    return check


def describe(value):
    kind = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value))
    if kind is None:
        kind = "a number" if isinstance(value, (int, float)) else type(value).__name__
        if isinstance(value, float) and not math.isfinite(value):
            kind = f"{value} (not a finite number)"
    return kind
