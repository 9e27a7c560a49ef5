"""Validates `hone build --json` output against $defs/compile of protocol/schema/verdict.schema.json.

  validate_compile_report.py SCHEMA < output.json
Prints "valid" or the validation errors (exit 1).
"""
import json
import sys

import jsonschema


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    document = json.load(sys.stdin)
    compile_schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/compile"}
    validator = jsonschema.Draft202012Validator(compile_schema)
    errors = sorted(validator.iter_errors(document["compile"]), key=lambda e: list(e.path))
    for e in errors:
        print("%s: %s" % ("/".join(str(p) for p in e.path), e.message))
    if errors:
        sys.exit(1)
    print("valid")


if __name__ == "__main__":
    main()
