# The room app in workerd, Cloudflare's runtime (the npm package `workerd`):
#
#   node examples/durable-objects/build.mjs   # dist/worker.js, dist/page.js, .storage/
#   cd examples/durable-objects && npx workerd serve config.capnp
#
# then open http://127.0.0.1:8787/?room=lobby in two windows. The rooms'
# storage and alarms are kept on disk in the "room-storage" directory
# (.storage/, relative to where workerd runs; `workerd serve config.capnp
# --directory-path=room-storage=<dir>` puts it elsewhere), so a room
# outlives its object's evictions and a restart of workerd.

using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .room),
    (name = "room-storage", disk = (path = ".storage", writable = true)),
  ],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "main")],
);

const room :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "dist/worker.js")],
  bindings = [
    (name = "ROOM", durableObjectNamespace = "RoomObject"),
    # The flaky upstream is this Worker's own /upstream/define.
    (name = "UPSTREAM", service = "main"),
    (name = "UPSTREAM_SEED", text = "1"),
    (name = "UPSTREAM_FAILURE_RATE", text = "0.3"),
    # The page, served by the Worker's fetch handler.
    (name = "INDEX_HTML", text = embed "index.html"),
    (name = "PAGE_JS", text = embed "dist/page.js"),
  ],
  # SQLite-backed: the durable actor host keeps its state in ctx.storage.kv.
  durableObjectNamespaces = [
    (className = "RoomObject", uniqueKey = "understudy-room-object", enableSql = true),
  ],
  durableObjectStorage = (localDisk = "room-storage"),
  compatibilityDate = "2025-09-01",
);
