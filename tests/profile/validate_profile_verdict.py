"""Validates `hone profile --json` output (one verdict per line on stdin) against
protocol/schema/verdict.schema.json, whose `profile` field is a $ref to profile.schema.json,
registered here by its $id so that nothing is fetched. Every verdict must carry a profile.
Usage: validate_profile_verdict.py SCHEMA_DIR < verdicts.jsonl; exits 1 naming the first violation,
2 when python3-jsonschema is missing."""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed: cannot validate", file=sys.stderr)
    sys.exit(2)


def validator_for(schema_dir):
    with open(os.path.join(schema_dir, "verdict.schema.json"), encoding="utf-8") as f:
        verdict = json.load(f)
    with open(os.path.join(schema_dir, "profile.schema.json"), encoding="utf-8") as f:
        profile = json.load(f)
    jsonschema.Draft202012Validator.check_schema(verdict)
    jsonschema.Draft202012Validator.check_schema(profile)
    try:
        from referencing import Registry, Resource  # jsonschema >= 4.18
        registry = Registry().with_resources(
            [(s["$id"], Resource.from_contents(s)) for s in (verdict, profile)])
        return jsonschema.Draft202012Validator(verdict, registry=registry)
    except ImportError:
        resolver = jsonschema.RefResolver.from_schema(verdict, store={profile["$id"]: profile})
        return jsonschema.Draft202012Validator(verdict, resolver=resolver)


def main():
    validator = validator_for(sys.argv[1])
    count = 0
    for number, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        verdict = json.loads(line)
        if not isinstance(verdict.get("profile"), dict):
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
    print(f"{count} profile verdict(s) valid against verdict.schema.json + profile.schema.json")


if __name__ == "__main__":
    main()
