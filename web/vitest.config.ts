import { availableParallelism } from "node:os";
import { defineConfig, mergeConfig } from "vitest/config";
import viteConfig from "./vite.config";

export default mergeConfig(
  viteConfig,
  defineConfig({
    test: {
      environment: "jsdom",
      globals: true,
      setupFiles: ["./src/test/setup.ts"],
      include: ["src/**/*.test.{ts,tsx}"],
      css: false,
      // Form tests type into many fields with userEvent, each a few seconds on a loaded 2-core machine: the default
      // 5 s limit failed them there although nothing was wrong. A real hang still fails, after 20 s.
      testTimeout: 20_000,
      // One worker per core: Vitest's default leaves one core free, which on the 2-core CI machine is half of it
      // (the suite took 198 s on one worker, 128 s on two).
      maxWorkers: availableParallelism(),
    },
  }),
);
