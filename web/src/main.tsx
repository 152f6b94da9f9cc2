// The entry script. It is small on purpose (issue 26): it starts the app's code (React, the router, the route table:
// ./app/boot, which index.html preloads) and the first page's own code (route-chunks.ts) at the same time, and renders
// once both are in, so the page shows without a spinner and no second round trip waits for the first.
import "./index.css";
import { getToken } from "@/lib/api";
import { loadFirstPage, reloadOnce } from "./app/route-chunks";

const container = document.getElementById("root");
if (!container) throw new Error("index.html has no #root element");

const firstPage = loadFirstPage(window.location.pathname, getToken() !== null);

import("./app/boot").then(
  async ({ start }) => {
    await firstPage;
    start(container);
  },
  () => {
    // The app's own code did not load: a release replaced it (reloading fetches the new one), or the network is down.
    if (!reloadOnce()) showLoadFailure(container);
  },
);

/** Says that the app could not load, with a way to retry, in plain DOM (React is what failed to load). */
function showLoadFailure(into: HTMLElement): void {
  const main = document.createElement("main");
  main.className = "flex min-h-screen flex-col items-center justify-center gap-4 px-4 text-center";
  const title = document.createElement("h1");
  title.className = "text-2xl font-bold";
  title.textContent = "Valuator could not be loaded";
  const text = document.createElement("p");
  text.className = "text-muted-foreground";
  text.textContent = "Check your connection and reload. If Valuator was just updated, reloading fetches the new version.";
  const button = document.createElement("button");
  button.type = "button";
  button.className = "rounded-md bg-primary px-4 py-2 text-sm font-medium text-primary-foreground";
  button.textContent = "Reload";
  button.addEventListener("click", () => window.location.reload());
  main.append(title, text, button);
  into.replaceChildren(main);
}
