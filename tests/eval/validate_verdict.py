"""Validates verdicts (one JSON object per line on stdin, as `hone check --json` prints them)
against protocol/schema/verdict.schema.json; exits 1 naming the first violation."""
import json
import os
import sys

import jsonschema

schema_path = sys.argv[1]
with open(schema_path, encoding="utf-8") as f:
    schema = json.load(f)
# The profile field is a $ref to profile.schema.json beside it: resolve it locally, never over the network.
with open(os.path.join(os.path.dirname(os.path.abspath(schema_path)), "profile.schema.json"), encoding="utf-8") as f:
    profile_schema = json.load(f)
try:
    from referencing import Registry, Resource  # jsonschema >= 4.18
    registry = Registry().with_resources([(s["$id"], Resource.from_contents(s)) for s in (schema, profile_schema)])
    validator = jsonschema.Draft202012Validator(schema, registry=registry)
except ImportError:
    resolver = jsonschema.RefResolver.from_schema(schema, store={profile_schema["$id"]: profile_schema})
    validator = jsonschema.Draft202012Validator(schema, resolver=resolver)
count = 0
for number, line in enumerate(sys.stdin, 1):
    if not line.strip():
        continue
    verdict = json.loads(line)
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
print(f"{count} verdict(s) valid")
