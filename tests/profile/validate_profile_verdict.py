"""Validates `hone profile --json` output (one verdict per line on stdin) against
protocol/schema/verdict.schema.json, whose `profile` field is a $ref to profile.schema.json,
registered by its $id so that nothing is fetched. Every verdict must carry a profile.
Usage: validate_profile_verdict.py SCHEMA_DIR < verdicts.jsonl; exits 1 naming the first violation,
2 when python3-jsonschema is missing. The validation itself is tests/eval/validate_verdict.py's."""
import os
import sys

try:
    import jsonschema  # noqa: F401
except ImportError:
    print("python3-jsonschema is not installed: cannot validate", file=sys.stderr)
    sys.exit(2)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "eval"))
from validate_verdict import validate_lines, validator_for  # noqa: E402


def main():
    validator = validator_for(os.path.join(sys.argv[1], "verdict.schema.json"))
    count = validate_lines(validator, sys.stdin, require_profile=True)
    print(f"{count} profile verdict(s) valid against verdict.schema.json + profile.schema.json")


if __name__ == "__main__":
    main()
