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
    root = root if root is not None else schema
    unknown = set(schema) - SUPPORTED
    if unknown:
        raise ValueError(f"schema uses unsupported keyword(s) {sorted(unknown)} at {where(path)}")
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return errors(value, root["$defs"][name], root, path)
    wanted = schema.get("type")
    if wanted is not None:
        names = wanted if isinstance(wanted, list) else [wanted]
        if not any(type_matches(value, n) for n in names):
            return f"{where(path)}: {describe(value)}, expected {' or '.join(names)}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where(path)}: {value!r} is not one of {schema['enum']}"
    if "const" in schema and value != schema["const"]:
        return f"{where(path)}: {value!r}, expected {schema['const']!r}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{where(path)}: {value} is below {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{where(path)}: {value} is above {schema['maximum']}"
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return f"{where(path)}: {value[:80]!r} does not match {schema['pattern']}"
        if "minLength" in schema and len(value) < schema["minLength"]:
            return f"{where(path)}: {value!r} is shorter than {schema['minLength']}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                return f"{where(path)}: no {key!r}"
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, inner in value.items():
            if key in properties:
                problem = errors(inner, properties[key], root, path + (key,))
            elif extra is False:
                problem = f"{where(path)}: unknown key {key!r}"
            elif isinstance(extra, dict):
                problem = errors(inner, extra, root, path + (key,))
            else:
                problem = None
            if problem:
                return problem
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            problem = errors(item, schema["items"], root, path + (index,))
            if problem:
                return problem
    return None


def describe(value):
    kind = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value))
    if kind is None:
        kind = "a number" if isinstance(value, (int, float)) else type(value).__name__
        if isinstance(value, float) and not math.isfinite(value):
            kind = f"{value} (not a finite number)"
    return kind
