#!/usr/bin/python3
"""A kubelet's side of the CRI, for tests: one runtime.v1 call per run.

  cri.py gen DIR                      stubs from runtime_v1.proto (beside this file) into DIR
  cri.py [--stubs DIR] SOCKET METHOD  the request as JSON on stdin (protobuf's JSON mapping:
                                      lowerCamelCase names, enum names as strings); the
                                      response as JSON on stdout, exit 0; a gRPC error as
                                      "CODE: details" on stderr, exit 1.
  cri.py image ROOTFS REF ARCHIVE [--entrypoint JSON] [--cmd JSON] [--env JSON]
                                      an OCI image archive of ROOTFS (one uncompressed layer),
                                      named REF, for `ctr images import`.

Debian's python3-grpcio and python3-grpc-tools; nothing is pulled."""
import hashlib
import io
import json
import os
import platform
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))


def gen(out):
    from grpc_tools import protoc

    os.makedirs(out, exist_ok=True)
    rc = protoc.main(["protoc", "-I" + HERE, "--python_out=" + out, "--grpc_python_out=" + out,
                      os.path.join(HERE, "runtime_v1.proto")])
    if rc != 0:
        sys.exit("cri.py: protoc failed (%d)" % rc)


def call(stubs, socket, method):
    sys.path.insert(0, stubs)
    import grpc
    from google.protobuf import json_format
    import runtime_v1_pb2 as pb
    import runtime_v1_pb2_grpc as pb_grpc

    request = json_format.Parse(sys.stdin.read() or "{}", getattr(pb, method + "Request")())
    with grpc.insecure_channel("unix://" + socket) as channel:
        try:
            response = getattr(pb_grpc.RuntimeServiceStub(channel), method)(request, timeout=120)
        except grpc.RpcError as e:
            print("%s: %s" % (e.code().name, e.details()), file=sys.stderr)
            sys.exit(1)
    print(json_format.MessageToJson(response, indent=None))



def image(rootfs, ref, archive, entrypoint=None, cmd=None, env=None):
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    layer = io.BytesIO()
    with tarfile.open(fileobj=layer, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name in sorted(os.listdir(rootfs)):
            t.add(os.path.join(rootfs, name), arcname=name)
    layer = layer.getvalue()
    out = tarfile.open(archive, "w")

    def add(name, data):
        info = tarfile.TarInfo(name)
        info.size = len(data)
        out.addfile(info, io.BytesIO(data))

    def add_blob(data, media_type):
        digest = hashlib.sha256(data).hexdigest()
        add("blobs/sha256/" + digest, data)
        return {"mediaType": media_type, "digest": "sha256:" + digest, "size": len(data)}

    config = {
        "architecture": arch, "os": "linux",
        "config": {"Env": env or ["PATH=/bin"], "Entrypoint": entrypoint, "Cmd": cmd},
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(layer).hexdigest()]},
    }
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": add_blob(json.dumps(config).encode(), "application/vnd.oci.image.config.v1+json"),
        "layers": [add_blob(layer, "application/vnd.oci.image.layer.v1.tar")],
    }
    desc = add_blob(json.dumps(manifest).encode(), "application/vnd.oci.image.manifest.v1+json")
    desc["platform"] = {"architecture": arch, "os": "linux"}
    desc["annotations"] = {"io.containerd.image.name": ref, "org.opencontainers.image.ref.name": ref}
    add("oci-layout", json.dumps({"imageLayoutVersion": "1.0.0"}).encode())
    add("index.json", json.dumps({"schemaVersion": 2, "manifests": [desc]}).encode())
    out.close()


def main(argv):
    if len(argv) == 3 and argv[1] == "gen":
        return gen(argv[2])
    if len(argv) >= 5 and argv[1] == "image":
        opts = dict(zip(argv[5::2], (json.loads(v) for v in argv[6::2])))
        return image(argv[2], argv[3], argv[4], opts.get("--entrypoint"), opts.get("--cmd"), opts.get("--env"))
    stubs = None
    if len(argv) > 2 and argv[1] == "--stubs":
        stubs, argv = argv[2], argv[:1] + argv[3:]
    if len(argv) != 3 or not stubs:
        sys.exit(__doc__)
    call(stubs, argv[1], argv[2])


if __name__ == "__main__":
    main(sys.argv)
