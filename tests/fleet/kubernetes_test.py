#!/usr/bin/env python3
"""The Kubernetes recipe (deploy/kubernetes/gpuvet-snapshot-job.yaml), checked without a cluster:
a lint of what makes it one pod per GPU node writing to the shared volume, then a dry run of its
container's own command here, with the container's paths mapped to this machine's, and
`gpuvet fleet report` on what it wrote.

  kubernetes_test.py GPUVET MANIFEST
Exit 77 (skipped) without PyYAML, unless CI is set.
"""
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def expect(condition, message):
    if not condition:
        fail(message)


try:
    import yaml
except ImportError:
    if os.environ.get("CI"):
        fail("no PyYAML (python3-yaml); CI must run this test")
    print("SKIP: no PyYAML (scripts/bootstrap.sh --tests installs python3-yaml)")
    sys.exit(77)


def lint(job):
    expect(job.get("apiVersion") == "batch/v1" and job.get("kind") == "Job", "not a batch/v1 Job")
    spec = job["spec"]
    expect(spec.get("completionMode") == "Indexed", "completionMode must be Indexed")
    expect(spec["completions"] == spec["parallelism"], "completions and parallelism must match")
    expect(spec.get("backoffLimit") == 0, "a failed node must not be retried onto another node")
    pod = spec["template"]["spec"]
    labels = spec["template"]["metadata"]["labels"]
    expect(pod.get("restartPolicy") == "Never", "restartPolicy must be Never")
    terms = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    expect(any(t["topologyKey"] == "kubernetes.io/hostname"
               and all(labels.get(k) == v for k, v in t["labelSelector"]["matchLabels"].items())
               for t in terms), "no required anti-affinity per hostname on the pod's own labels")
    expect(pod.get("nodeSelector"), "no nodeSelector for GPU nodes")
    volumes = {v["name"]: v for v in pod["volumes"]}
    containers = pod.get("initContainers", []) + pod["containers"]
    for container in containers:
        for mount in container.get("volumeMounts", []):
            expect(mount["name"] in volumes, f"{container['name']} mounts an undeclared volume {mount['name']}")
    main = pod["containers"][0]
    env = {e["name"]: e for e in main.get("env", [])}
    expect(env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName",
           "NODE_NAME must come from spec.nodeName")
    expect(env.get("NVIDIA_VISIBLE_DEVICES", {}).get("value") == "all", "the pod must see every GPU")
    expect(main["command"][1] == "snapshot", "the container must run gpuvet snapshot")
    # gpuvet reaches the main container through a volume the init container fills.
    init = pod["initContainers"][0]
    binary = main["command"][0]
    shared = [m for m in main["volumeMounts"] if binary.startswith(m["mountPath"] + "/")]
    expect(shared, f"{binary} lies in no volume of the main container")
    expect(any(m["name"] == shared[0]["name"] for m in init["volumeMounts"]),
           "the init container does not fill the volume gpuvet runs from")
    expect("emptyDir" in volumes[shared[0]["name"]], "gpuvet's volume must be an emptyDir")
    out = main["command"][main["command"].index("-o") + 1]
    mounts = [m for m in main["volumeMounts"] if out.startswith(m["mountPath"] + "/")]
    expect(mounts and "persistentVolumeClaim" in volumes[mounts[0]["name"]],
           "the snapshot must go to the shared claim")
    expect(out.endswith("$(NODE_NAME).json.gz"), "one file per node, named after it")
    return main, shared[0]["mountPath"], mounts[0]["mountPath"]


def expand(argument, env):
    """Kubernetes' own $(VAR) expansion in a container's command."""
    return re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m.group(1), m.group(0)), argument)


def main():
    gpuvet, manifest = sys.argv[1], sys.argv[2]
    with open(manifest, encoding="utf-8") as f:
        documents = [d for d in yaml.safe_load_all(f) if d]
    jobs = [d for d in documents if d.get("kind") == "Job"]
    expect(len(jobs) == 1, "the manifest must hold exactly one Job")
    container, gpuvet_dir, out_dir = lint(jobs[0])

    with tempfile.TemporaryDirectory() as here:
        env = {"NODE_NAME": "gpu-node-a"}
        command = [expand(a, env) for a in container["command"]]
        command[0] = command[0].replace(gpuvet_dir + "/", os.path.dirname(os.path.abspath(gpuvet)) + "/", 1)
        command = [a.replace(out_dir + "/", here + "/", 1) for a in command]
        expect(os.path.basename(command[0]) == os.path.basename(gpuvet), f"unexpected program {command[0]}")
        subprocess.run(command, check=True, env=dict(os.environ, NODE_NAME="gpu-node-a"), timeout=300)
        written = os.path.join(here, "gpu-node-a.json.gz")
        expect(os.path.exists(written), f"the command wrote no {written}")
        snapshot = json.loads(gzip.decompress(open(written, "rb").read()))
        expect(snapshot["schema"] == "gpuvet.snapshot/1", "not a snapshot")
        report = subprocess.run([gpuvet, "fleet", "report", here, "--json"], capture_output=True, text=True,
                                timeout=300)
        expect(report.returncode in (0, 1), f"fleet report failed: {report.stderr}")
        nodes = json.loads(report.stdout)["nodes"]
        expect(len(nodes) == 1 and nodes[0]["host"] == snapshot["host"].get("hostname"),
               f"the report does not hold the node: {nodes}")
    print("PASS")


if __name__ == "__main__":
    main()
