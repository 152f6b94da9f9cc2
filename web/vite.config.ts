import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import tailwindcss from "@tailwindcss/vite";
import path from "node:path";

// The app is built into dist/app; web/embed.go embeds dist (which always holds a committed .gitkeep, so the Go
// build works before the first web build).
export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: {
    alias: { "@": path.resolve(import.meta.dirname, "src") },
  },
  build: {
    outDir: "dist/app",
    emptyOutDir: true,
    assetsDir: "assets",
    sourcemap: false,
    // dist/app/.vite/manifest.json lists every chunk and what it imports; e2e/tests/bundle-budget.spec.ts reads it
    // to hold the landing page to its JS budget. The server does not serve it (internal/server/spa.go).
    manifest: true,
    chunkSizeWarningLimit: 2000,
  },
  server: {
    port: 5173,
    // During `npm run dev` the Go server answers the API.
    proxy: {
      "/api": "http://localhost:8080",
      "/healthz": "http://localhost:8080",
      "/readyz": "http://localhost:8080",
    },
  },
});
