"""Validates verdicts (one JSON object per line on stdin, as `hone check --json` prints them)
against protocol/schema/verdict.schema.json; exits 1 naming the first violation.
tests/profile/validate_profile_verdict.py reuses validator_for and validate_lines."""
import json
import os
import sys

import jsonschema


def validator_for(schema_path):
    """A validator for verdict.schema.json whose profile $ref (profile.schema.json beside it) is
    resolved locally, never over the network."""
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    with open(os.path.join(os.path.dirname(os.path.abspath(schema_path)), "profile.schema.json"), encoding="utf-8") as f:
        profile_schema = json.load(f)
    for s in (schema, profile_schema):
        jsonschema.Draft202012Validator.check_schema(s)
    try:
        from referencing import Registry, Resource  # jsonschema >= 4.18
        registry = Registry().with_resources([(s["$id"], Resource.from_contents(s)) for s in (schema, profile_schema)])
        return jsonschema.Draft202012Validator(schema, registry=registry)
    except ImportError:
        resolver = jsonschema.RefResolver.from_schema(schema, store={profile_schema["$id"]: profile_schema})
        return jsonschema.Draft202012Validator(schema, resolver=resolver)


def validate_lines(validator, lines, require_profile=False):
    """Validates each non-empty line; returns the count, or exits 1 naming the first violation."""
    count = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        verdict = json.loads(line)
        if require_profile and not isinstance(verdict.get("profile"), dict):
            print(f"verdict {number}: no profile (status {verdict.get('status')}, "
                  f"error {verdict.get('error')})", file=sys.stderr)
            sys.exit(1)
        errors = sorted(validator.iter_errors(verdict), key=lambda e: list(e.absolute_path))
        if errors:
            e = errors[0]
            where = "/".join(str(p) for p in e.absolute_path) or "(root)"
            print(f"verdict {number}: {where}: {e.message}", file=sys.stderr)
            sys.exit(1)
        count += 1
    if count == 0:
        print("no verdict on stdin", file=sys.stderr)
        sys.exit(1)
    return count


if __name__ == "__main__":
    print(f"{validate_lines(validator_for(sys.argv[1]), sys.stdin)} verdict(s) valid")
