import { defineConfig } from "vitest/config";

// No test is timed: property tests over random data take seconds on a loaded machine,
// and vitest's default 5 s limit turned that into failures. Benchmarks measure speed.
export default defineConfig({
  test: { include: ["js/test/**/*.test.js"], environment: "node", testTimeout: 120_000 },
});
