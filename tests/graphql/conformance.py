#!/usr/bin/python3
"""Validates GraphQL documents with Debian's python3-graphql-core, for conformance_test.cpp.

usage: conformance.py SCHEMA.graphql DOCUMENTS.json
DOCUMENTS.json is a JSON array of document strings. Prints a JSON array with one
{"verdict": "valid" | "invalid" | "syntax", "messages": [...]} per document.

graphql-core 2 reads neither descriptions nor block strings in SDL, so the schema's block
strings (kprov writes every description as one) are removed before it is built.
"""
import json
import re
import sys

from graphql import build_ast_schema, parse, validate


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        sdl = re.sub(r'"""[\s\S]*?"""', "", f.read())
    schema = build_ast_schema(parse(sdl))
    with open(sys.argv[2], encoding="utf-8") as f:
        documents = json.load(f)
    out = []
    for text in documents:
        try:
            document = parse(text)
        except Exception as e:  # GraphQLSyntaxError, and anything the old lexer trips on
            out.append({"verdict": "syntax", "messages": [str(e).splitlines()[0]]})
            continue
        try:
            errors = validate(schema, document)
        except Exception as e:  # graphql-core 2 crashes on a few broken documents
            out.append({"verdict": "crash", "messages": [repr(e)]})
            continue
        out.append({"verdict": "invalid" if errors else "valid",
                    "messages": [e.message for e in errors]})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
