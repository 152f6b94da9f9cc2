import { defineConfig, type Plugin } from "vite";
import react from "@vitejs/plugin-react";
import tailwindcss from "@tailwindcss/vite";
import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * Preloads the app's code from index.html. The entry script (src/main.tsx) is small: it imports the app (src/app/boot.tsx:
 * React, the router, the route table) dynamically, so that it can start the first page's code at the same time. Vite
 * preloads only an entry's static imports; this adds `<link rel="modulepreload">` for the app's chunk and everything it
 * imports, so the browser fetches them with the entry instead of after it.
 */
function preloadApp(): Plugin {
  const BOOT = "/src/app/boot.tsx";
  return {
    name: "valuator:preload-app",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(html, ctx) {
        const bundle = ctx.bundle;
        if (!bundle) return;
        const chunks = Object.values(bundle).filter((c) => c.type === "chunk");
        const boot = chunks.find((c) => c.moduleIds.some((id) => id.endsWith(BOOT)));
        if (!boot) throw new Error(`preloadApp: no chunk for ${BOOT}`);
        const files: string[] = [];
        const visit = (file: string) => {
          const c = chunks.find((x) => x.fileName === file);
          if (!c || c.isEntry || files.includes(file)) return;
          files.push(file);
          c.imports.forEach(visit);
        };
        visit(boot.fileName);
        return files
          .filter((f) => !html.includes(`/${f}"`))
          .map((f) => ({
            tag: "link",
            attrs: { rel: "modulepreload", crossorigin: true, href: `/${f}` },
            injectTo: "head" as const,
          }));
      },
    },
  };
}

/**
 * The modules the entry (src/main.tsx) imports, however deep, but main.tsx itself: filled once the module graph is
 * known, read when the chunks are made (`build.rolldownOptions.output.codeSplitting` below).
 */
const entryModules = new Set<string>();

/**
 * Puts the app's code into one chunk. Left to itself the bundler splits it into a dozen small files by which pages
 * share them; a phone on a slow network then spends a round trip per few of them before the page can show (issue 26,
 * Lighthouse mobile). Every page needs all of them, so they are one file: src/app/boot.tsx and everything it imports,
 * less what the entry imports (which must not wait for the app's chunk: the entry starts the page's own code at
 * once), which is a small chunk of its own.
 */
function collectEntryModules(): Plugin {
  return {
    name: "valuator:app-chunk",
    apply: "build",
    buildEnd() {
      const main = [...this.getModuleIds()].find((m) => m.endsWith("/src/main.tsx"));
      if (!main) throw new Error("app-chunk: no module src/main.tsx");
      entryModules.clear();
      const visit = (id: string) => {
        if (entryModules.has(id)) return;
        entryModules.add(id);
        for (const dep of this.getModuleInfo(id)?.importedIds ?? []) visit(dep);
      };
      visit(main);
      entryModules.delete(main);
    },
  };
}

/**
 * Imports each lucide icon from its own module instead of the library's index of every icon. The bundler drops the
 * unused icons either way; but the index makes every module that imports an icon depend on every icon the app uses,
 * so the app's chunk (which takes its modules' dependencies) would carry the signed-in screens' icons too.
 */
function directIconImports(): Plugin {
  const esm = path.resolve(import.meta.dirname, "node_modules", "lucide-react", "dist", "esm");
  let files: Map<string, string> | undefined;
  const iconFiles = () => {
    if (files) return files;
    files = new Map();
    const index = readFileSync(path.join(esm, "lucide-react.mjs"), "utf8");
    for (const m of index.matchAll(/export \{([^}]*)\} from '\.\/icons\/([\w-]+)\.mjs';/g)) {
      for (const name of m[1].matchAll(/default as (\w+)/g)) files.set(name[1], path.join(esm, "icons", `${m[2]}.mjs`));
    }
    return files;
  };
  return {
    name: "valuator:direct-icon-imports",
    apply: "build",
    enforce: "pre",
    transform(code, id) {
      if (!/[\\/]src[\\/].*\.tsx?$/.test(id) || !code.includes("lucide-react")) return null;
      const out = code.replace(/import\s*\{([^}]*)\}\s*from\s*["']lucide-react["'];?/g, (whole, list: string) => {
        const rest: string[] = [];
        const direct: string[] = [];
        for (const spec of list.split(",").map((x) => x.trim()).filter(Boolean)) {
          const [name, alias = name] = spec.split(/\s+as\s+/);
          const file = iconFiles().get(name);
          if (file && !spec.startsWith("type ")) direct.push(`import ${alias} from ${JSON.stringify(file)};`);
          else rest.push(spec);
        }
        return [...direct, rest.length ? `import { ${rest.join(", ")} } from "lucide-react";` : ""].join("\n");
      });
      return out === code ? null : { code: out, map: null };
    },
  };
}

const APP_CHUNK_GROUPS = [
  { name: "entry-shared", test: (id: string) => entryModules.has(id) && !id.endsWith(".css"), priority: 20 },
  { name: "app", test: (id: string) => id.endsWith("/src/app/boot.tsx"), priority: 10 },
];

// The app is built into dist/app; web/embed.go embeds dist (which always holds a committed .gitkeep, so the Go
// build works before the first web build).
export default defineConfig({
  plugins: [directIconImports(), react(), tailwindcss(), collectEntryModules(), preloadApp()],
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
    rolldownOptions: {
      output: {
        codeSplitting: { groups: APP_CHUNK_GROUPS },
      },
    },
  },
  server: {
    port: 5173,
    // During `npm run dev` the Go server answers the API.
    proxy: {
      "/api": "http://localhost:8080",
      "/healthz": "http://localhost:8080",
      "/readyz": "http://localhost:8080",
      "/robots.txt": "http://localhost:8080",
      "/sitemap.xml": "http://localhost:8080",
    },
  },
});
