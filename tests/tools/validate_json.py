#!/usr/bin/env python3
"""validate_json.py SCHEMA FILE...: validates each FILE against SCHEMA (draft 2020-12, $refs resolved
relative to the schema's directory). Prints one line per file; exits 1 if any is invalid."""
import json
import os
import sys

from jsonschema.validators import validator_for
from referencing import Registry, Resource


def main():
    schema_path = os.path.abspath(sys.argv[1])
    schema_dir = os.path.dirname(schema_path)
    resources = []
    for name in sorted(os.listdir(schema_dir)):
        if name.endswith('.json'):
            with open(os.path.join(schema_dir, name)) as f:
                s = json.load(f)
            resources.append((s.get('$id', name), Resource.from_contents(s)))
    registry = Registry().with_resources(resources)
    with open(schema_path) as f:
        schema = json.load(f)
    cls = validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema, registry=registry)
    bad = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        if errors:
            bad += 1
            e = errors[0]
            print('%s: invalid at %s: %s' % (path, '/'.join(str(p) for p in e.path) or '(root)', e.message))
        else:
            print('%s: valid' % path)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
