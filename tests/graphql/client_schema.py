#!/usr/bin/python3
"""Builds a client schema from kprov's introspection result with graphql-core's
build_client_schema (what code generators do) and compares it with the schema graphql-core
builds from the SDL file itself, for introspection_test.cpp.

usage: client_schema.py SCHEMA.graphql INTROSPECTION.json
Prints "same" when both print alike, else a unified diff; exits 1 on any failure.
"""
import difflib
import json
import re
import sys

from graphql import build_ast_schema, build_client_schema, parse
from graphql.utils.schema_printer import print_schema


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        sdl = re.sub(r'"""[\s\S]*?"""', "", f.read())  # graphql-core 2 reads no descriptions
    with open(sys.argv[2], encoding="utf-8") as f:
        result = json.load(f)
    client = print_schema(build_client_schema(result["data"]))
    # graphql-core 2 predates @specifiedBy (2021); kprov declares it like every built-in.
    client = client.replace("directive @specifiedBy(url: String!) on SCALAR\n\n", "")
    expected = print_schema(build_ast_schema(parse(sdl)))
    if client == expected:
        print("same")
        return 0
    print("\n".join(difflib.unified_diff(expected.splitlines(), client.splitlines(),
                                         "from SDL", "from introspection", lineterm="")))
    return 1


if __name__ == "__main__":
    sys.exit(main())
