// The worker's first module: loads one function and serves it on the
// host's Unix socket. Arguments: the socket's path and the function's
// entrypoint as a file: URL.
//
// A function calls `Deno.serve(handler)` (or `Deno.serve(options, handler)`,
// or `Deno.serve({ handler })`), as on the platform, or exports
// `default { fetch }`. Whatever port or address it asks for, it is served on
// the socket only.
const [socket, entry] = Deno.args;
const serve = Deno.serve;

// The host holds this process's stdin open: when the host goes away, even
// killed, stdin ends and so does the worker.
(async () => {
  const buffer = new Uint8Array(64);
  try {
    while ((await Deno.stdin.read(buffer)) !== null) { /* nothing is sent */ }
  } catch { /* closed */ }
  Deno.exit(0);
})();
let handler = null;

Deno.serve = (first, second) => {
  const found = typeof first === "function"
    ? first
    : typeof second === "function"
    ? second
    : first?.handler;
  if (typeof found !== "function") throw new TypeError("Deno.serve needs a handler");
  handler = found;
  const finished = new Promise(() => {});
  return {
    finished,
    addr: { transport: "unix", path: socket },
    shutdown: () => Promise.resolve(),
    ref() {},
    unref() {},
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
};

// The platform's background-task hook: the promise is awaited by nobody,
// but its failure is logged rather than ending the worker.
globalThis.EdgeRuntime = {
  waitUntil(promise) {
    Promise.resolve(promise).catch((e) => console.error("waitUntil:", e));
  },
};

// An unhandled rejection would end the process and every request on it.
globalThis.addEventListener("unhandledrejection", (event) => {
  console.error("unhandled rejection:", event.reason);
  event.preventDefault();
});

let module;
try {
  module = await import(entry);
} catch (error) {
  console.error("the function cannot be loaded:", error);
  Deno.exit(70);
}
if (!handler && typeof module.default?.fetch === "function") {
  handler = (request, info) => module.default.fetch(request, info);
}
if (!handler) {
  console.error("the function neither called Deno.serve nor exported default { fetch }");
  Deno.exit(70);
}

const failed = () =>
  new Response(
    JSON.stringify({
      code: "WORKER_ERROR",
      message: "Function exited due to an error (please check logs)",
    }),
    {
      status: 500,
      headers: { "content-type": "application/json", "sb-error-code": "WORKER_ERROR" },
    },
  );

serve({
  path: socket,
  onListen() {},
  onError(error) {
    console.error(error);
    return failed();
  },
}, handler);
