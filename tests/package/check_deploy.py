#!/usr/bin/env python3
"""Checks deploy/: every Kubernetes manifest parses and says what an operator relies on (probes on
/readyz and /healthz, requests and limits, a non-root read-only container without privilege
escalation or capabilities, PostgreSQL from a Secret; the kustomization names every resource that
exists); the alert rules and the dashboard use only metrics kprov exports (src/api/metrics.cpp).
Prints each problem and exits 1 when there is one."""

import json
import os
import re
import sys

import yaml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
K8S = os.path.join(ROOT, "deploy", "kubernetes")
problems = []


def problem(where, what):
    problems.append(f"{where}: {what}")


def documents():
    for name in sorted(os.listdir(K8S)):
        if name.endswith(".yaml"):
            with open(os.path.join(K8S, name)) as f:
                for doc in yaml.safe_load_all(f):
                    if doc is not None:
                        yield name, doc


def check_pod(where, spec, daemon):
    pod_sc = spec.get("securityContext", {})
    if pod_sc.get("runAsNonRoot") is not True:
        problem(where, "pod securityContext.runAsNonRoot is not true")
    if spec.get("automountServiceAccountToken") is not False:
        problem(where, "automountServiceAccountToken is not false")
    for c in spec.get("containers", []):
        cw = f"{where} container {c.get('name')}"
        sc = c.get("securityContext", {})
        if sc.get("readOnlyRootFilesystem") is not True:
            problem(cw, "readOnlyRootFilesystem is not true")
        if sc.get("allowPrivilegeEscalation") is not False:
            problem(cw, "allowPrivilegeEscalation is not false")
        if sc.get("capabilities", {}).get("drop") != ["ALL"]:
            problem(cw, "capabilities.drop is not [ALL]")
        res = c.get("resources", {})
        for kind in ("requests", "limits"):
            if not {"cpu", "memory"} <= set(res.get(kind, {})):
                problem(cw, f"resources.{kind} lacks cpu or memory")
        if not any(ref.get("secretRef") for ref in c.get("envFrom", [])):
            problem(cw, "takes no settings from a Secret (KPROV_STORE)")
        if daemon:
            for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
                got = c.get(probe, {}).get("httpGet", {}).get("path")
                if got != path:
                    problem(cw, f"{probe} is not GET {path} (got {got})")


def main():
    kinds = {}
    for name, doc in documents():
        kind = doc.get("kind")
        kinds.setdefault(kind, []).append(doc)
        where = f"{name} {kind}/{doc.get('metadata', {}).get('name')}"
        if kind == "Deployment":
            args = doc["spec"]["template"]["spec"]["containers"][0].get("args", [])
            check_pod(where, doc["spec"]["template"]["spec"], daemon=True)
            if args[:1] == ["serve"] and doc["spec"].get("replicas") != 2:
                problem(where, "kprov serve does not run 2 replicas")
        elif kind == "Job":
            check_pod(where, doc["spec"]["template"]["spec"], daemon=False)
    deployments = [d["spec"]["template"]["spec"]["containers"][0].get("args", [None])[0]
                   for d in kinds.get("Deployment", [])]
    for want in ("serve", "watch"):
        if want not in deployments:
            problem("deploy/kubernetes", f"no Deployment of kprov {want}")
    jobs = [j["spec"]["template"]["spec"]["containers"][0].get("args") for j in kinds.get("Job", [])]
    if ["migrate"] not in jobs:
        problem("deploy/kubernetes", "no Job running kprov migrate")
    for kind in ("Service", "PodDisruptionBudget", "NetworkPolicy", "ServiceMonitor"):
        if kind not in kinds:
            problem("deploy/kubernetes", f"no {kind}")
    with open(os.path.join(K8S, "kustomization.yaml")) as f:
        listed = set(yaml.safe_load(f)["resources"])
    for name in listed:
        if not os.path.exists(os.path.join(K8S, name)):
            problem("kustomization.yaml", f"names {name}, which does not exist")

    # Metrics: the names registered in src/api/metrics.cpp, with a histogram's series.
    with open(os.path.join(ROOT, "src", "api", "metrics.cpp")) as f:
        source = f.read()
    exported = set()
    for kind, name in re.findall(r'Build(Gauge|Counter|Histogram)\(\)\s*\.Name\("([a-z_]+)"\)', source):
        exported.add(name)
        if kind == "Histogram":
            exported |= {name + "_bucket", name + "_sum", name + "_count"}
    exprs = []
    with open(os.path.join(ROOT, "deploy", "prometheus", "kprov-rules.yaml")) as f:
        for group in yaml.safe_load(f)["groups"]:
            exprs += [("kprov-rules.yaml " + r["alert"], r["expr"]) for r in group["rules"]]
    with open(os.path.join(ROOT, "deploy", "prometheus", "kprov-dashboard.json")) as f:
        for panel in json.load(f)["panels"]:
            exprs += [("kprov-dashboard.json " + panel["title"], t["expr"]) for t in panel["targets"]]
    for where, expr in exprs:
        for name in re.findall(r"\b(k(?:prov|cp_provisioner)_[a-z_]+)", expr):
            if name not in exported:
                problem(where, f"uses {name}, which kprov does not export")
    if len(exprs) < 10:
        problem("deploy/prometheus", f"only {len(exprs)} expressions found")

    for p in problems:
        print("check_deploy:", p)
    print(f"check_deploy: {len(list(documents()))} manifests, {len(exprs)} metric expressions, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
