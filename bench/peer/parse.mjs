// The benchmark's peer: @huggingface/hub reading a repo's safetensors headers remotely.
//   node parse.mjs <endpoint> <repo> [revision]
// Prints one JSON line: {"wall_ms":..., "shards":..., "parameters":{dtype:count}, "total":...}.
import { parseSafetensorsMetadata } from "@huggingface/hub";

const [endpoint, repo, revision] = process.argv.slice(2);
if (!endpoint || !repo) {
  console.error("usage: node parse.mjs <endpoint> <repo> [revision]");
  process.exit(2);
}

const started = performance.now();
try {
  const result = await parseSafetensorsMetadata({
    repo: { type: "model", name: repo },
    hubUrl: endpoint.replace(/\/+$/, ""),
    revision,
    computeParametersCount: true,
  });
  const wall_ms = Math.round(performance.now() - started);
  const shards = result.sharded ? Object.keys(result.headers).length : 1;
  console.log(
    JSON.stringify({
      wall_ms,
      shards,
      parameters: result.parameterCount,
      total: result.parameterTotal ?? null,
    }),
  );
} catch (err) {
  console.error(`parse.mjs: ${err?.stack ?? err}`);
  process.exit(1);
}
