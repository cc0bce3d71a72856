// The GGUF benchmark's peer: @huggingface/gguf reading GGUF headers over HTTP.
//   node parse_gguf.mjs <url> [<url>...]
// Each url is a file's resolve URL (<endpoint>/<repo>/resolve/<rev>/<file>); the library follows the
// Hub's 302 to the CDN with fetch and reads the header in 2,000,000-byte ranged chunks. All the
// files are read at once (Promise.all), as a caller with several files would.
// Prints one JSON line:
//   {"wall_ms":..., "files":[{"url":..., "version":..., "tensors":..., "tensor_data_offset":...,
//    "parameter_count":...}]}
import { gguf } from "@huggingface/gguf";

const urls = process.argv.slice(2);
if (urls.length === 0) {
  console.error("usage: node parse_gguf.mjs <url> [<url>...]");
  process.exit(2);
}

const started = performance.now();
try {
  const files = await Promise.all(
    urls.map(async (url) => {
      const { metadata, tensorInfos, tensorDataOffset, parameterCount } = await gguf(url, {
        computeParametersCount: true,
      });
      return {
        url,
        version: metadata.version,
        tensors: tensorInfos.length,
        tensor_data_offset: Number(tensorDataOffset),
        // A plain element count over every tensor (a JS number: exact below 2^53).
        parameter_count: parameterCount,
      };
    }),
  );
  const wall_ms = Math.round(performance.now() - started);
  console.log(JSON.stringify({ wall_ms, files }));
} catch (err) {
  console.error(`parse_gguf.mjs: ${err?.stack ?? err}`);
  process.exit(1);
}
