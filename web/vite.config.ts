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
 * The pages a visitor arrives on from outside, by the module their lazily loaded chunk starts from: the landing
 * page, pricing, the other static pages, and sign-in (issue 33: Lighthouse measures `/`, `/pricing` and `/login`).
 * The contact and opt-out forms are not among them: they share Radix's Select with the signed-in app, which the
 * others would then download.
 */
const PUBLIC_PAGE_CHUNKS = [
  "/src/features/marketing/landing-page.tsx",
  "/src/features/marketing/pricing-page.tsx",
  "/src/app/auth-pages.ts",
  "/src/app/public-pages.ts",
];

/** The form libraries (and the zod settings they need first), which only pages with a form load. */
const FORMS = /[\\/]node_modules[\\/](zod|react-hook-form|@hookform)[\\/]|[\\/]src[\\/]lib[\\/]zod-config\.ts$/;
/**
 * react-hook-form, a chunk apart from zod: the sign-in pages need it to show their forms, and zod only once the
 * visitor starts to fill one in (features/auth/auth-schemas.ts).
 */
const REACT_HOOK_FORM = /[\\/]node_modules[\\/]react-hook-form[\\/]/;

/**
 * The chunk of each module that a public page's chunk shares with another lazily loaded chunk (another page, the
 * signed-in app), but the entry's, the app's and the form libraries': filled with `entryModules`. Left to itself the
 * bundler puts each set of modules that the same chunks share in a file of its own: a lucide icon, a Radix helper, a
 * 300-byte hook each made a file, and /pricing took 17 files to show. On Lighthouse's simulated phone (HTTP/1.1, six
 * connections, 150 ms a round trip) every few files cost another round trip (issue 33). So each such module goes into
 * one file per public page, `<page>-shared`, of the first page in PUBLIC_PAGE_CHUNKS that uses it: a page fetches its
 * own chunk with its shared file and those of the pages before it that it shares modules with, and the landing page
 * (the most visited, held to the tightest budget in e2e/tests/bundle-budget.spec.ts) nothing it does not use.
 */
const sharedChunkOf = new Map<string, string>();

/**
 * The modules that two or more of the pages Lighthouse measures (the first three of PUBLIC_PAGE_CHUNKS) share: they
 * go into the app's chunk, which every page downloads anyway, instead of a shared file: for a few KB (react-query's
 * useQuery, the Badge, an icon) /pricing and /login would otherwise fetch the landing page's shared file.
 */
const appExtraModules = new Set<string>();

/**
 * react-query's useQuery and what it needs: the landing page, sign-in and most screens use it, so it goes into the
 * app's chunk too. The app's own modules import react-query's index, so `appExtraModules` cannot tell it apart from
 * the index's other hooks (useMutation), which only the signed-in app uses and which stay out of the app's chunk.
 */
const USE_QUERY = /[\\/]node_modules[\\/]@tanstack[\\/]react-query[\\/]build[\\/]modern[\\/]useQuery\.js$/;

/**
 * Puts the app's code into one chunk. Left to itself the bundler splits it into a dozen small files by which pages
 * share them; a phone on a slow network then spends a round trip per few of them before the page can show (issue 26,
 * Lighthouse mobile). Every page needs all of them, so they are one file: src/app/boot.tsx and everything it imports,
 * less what the entry imports (which must not wait for the app's chunk: the entry starts the page's own code at
 * once), which is a small chunk of its own. What the public pages share is in two files (`sharedChunkOf`).
 */
function collectEntryModules(): Plugin {
  return {
    name: "valuator:app-chunk",
    apply: "build",
    buildEnd() {
      const ids = [...this.getModuleIds()];
      const main = ids.find((m) => m.endsWith("/src/main.tsx"));
      if (!main) throw new Error("app-chunk: no module src/main.tsx");
      /** A module and everything it imports statically, however deep: what loads with it. */
      const closure = (root: string, into = new Set<string>()) => {
        const visit = (id: string) => {
          if (into.has(id)) return;
          into.add(id);
          for (const dep of this.getModuleInfo(id)?.importedIds ?? []) visit(dep);
        };
        visit(root);
        return into;
      };
      entryModules.clear();
      closure(main, entryModules);
      entryModules.delete(main);

      const boot = ids.find((m) => m.endsWith("/src/app/boot.tsx"));
      if (!boot) throw new Error("app-chunk: no module src/app/boot.tsx");
      // What the app's chunk imports. More than it holds: a package's index (react-query's) re-exports modules that
      // only other chunks use (useMutation). They stay where the bundler puts them.
      const app = closure(boot);
      // Every lazily loaded chunk but the app's, by the module it starts from, with what it loads.
      const chunks = ids
        .filter((id) => id !== boot && (this.getModuleInfo(id)?.dynamicImporters.length ?? 0) > 0)
        .map((id) => ({ id, modules: closure(id) }));
      const pages = PUBLIC_PAGE_CHUNKS.map((page) => {
        const chunk = chunks.find((c) => c.id.endsWith(page));
        if (!chunk) throw new Error(`app-chunk: no lazily loaded chunk ${page}`);
        return chunk;
      });
      const movable = (id: string) => !entryModules.has(id) && !app.has(id) && !FORMS.test(id) && !id.endsWith(".css");
      const measured = pages.slice(0, 3);
      appExtraModules.clear();
      for (const id of new Set(measured.flatMap((c) => [...c.modules]))) {
        if (movable(id) && measured.filter((c) => c.modules.has(id)).length > 1) appExtraModules.add(id);
      }
      sharedChunkOf.clear();
      for (const { id: page, modules } of pages) {
        const name = `${path.basename(page).replace(/(-pages?)?\.tsx?$/, "")}-shared`;
        for (const id of modules) {
          if (sharedChunkOf.has(id) || appExtraModules.has(id) || !movable(id)) continue;
          if (chunks.filter((c) => c.modules.has(id)).length > 1) sharedChunkOf.set(id, name);
        }
      }
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
  {
    name: "app",
    test: (id: string) => id.endsWith("/src/app/boot.tsx") || appExtraModules.has(id) || USE_QUERY.test(id),
    priority: 10,
  },
  { name: "forms", test: (id: string) => REACT_HOOK_FORM.test(id), priority: 9 },
  { name: "zod", test: (id: string) => FORMS.test(id), priority: 8 },
  // One group for all of them, named by the function; each name is a chunk of its own.
  {
    name: (id: string) => sharedChunkOf.get(id) ?? null,
    debugName: "public-shared",
    test: (id: string) => sharedChunkOf.has(id),
    priority: 5,
  },
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
