// A worker of shardlens's page: it runs the app's background tasks (a file's load, a simulation, a query) in
// the page's own memory, so the page keeps drawing and can cancel them (src/app/workers.rs, docs/web.md).
// The page sends [module, memory, job]; the worker instantiates the module on the shared memory once, runs
// the job, and answers null, or what stopped it (the worker is then not used again).
import { initSync, shardlens_run_handed } from "./shardlens.js";

let started = false;
self.onmessage = (event) => {
  const [module, memory, job] = event.data;
  let failure = null;
  try {
    if (!started) {
      initSync({ module, memory });
      started = true;
    }
    shardlens_run_handed(job);
  } catch (e) {
    failure = String((e && e.stack) || e);
  }
  self.postMessage(failure);
};
