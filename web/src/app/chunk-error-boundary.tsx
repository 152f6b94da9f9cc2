import { Component, type ReactNode } from "react";
import { AlertCircle } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { FullPageSpinner } from "@/components/ui/spinner";
import { reloadOnce } from "./route-chunks";

// Browsers word a failed dynamic import differently; Vite's own message is for a stylesheet of the chunk.
const CHUNK_LOAD_FAILURE = /dynamically imported module|Importing a module script failed|Unable to preload CSS/i;

/** Whether an error is a page's code failing to load (offline, or a release replaced the hashed files). */
export function isChunkLoadError(error: unknown): boolean {
  return error instanceof Error && CHUNK_LOAD_FAILURE.test(error.message);
}

interface Props {
  /** The current path: going elsewhere clears the error. */
  resetKey: string;
  children: ReactNode;
}

interface State {
  error: unknown;
  resetKey: string;
  /** The page is being reloaded to fetch the new release's code. */
  reloading?: boolean;
}

/**
 * Most pages load their code when first shown (routes.tsx). When that fails, the page reloads once (after a release
 * the old files are gone, and a reload fetches the new ones); if it fails again, this says so and offers a reload
 * instead of leaving a blank page. Any other error is passed on as before.
 */
export class ChunkErrorBoundary extends Component<Props, State> {
  state: State = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey === state.resetKey ? null : { error: null, resetKey: props.resetKey, reloading: false };
  }

  componentDidCatch(error: unknown) {
    if (isChunkLoadError(error) && reloadOnce()) this.setState({ reloading: true });
  }

  render() {
    const { error } = this.state;
    if (error === null) return this.props.children;
    if (!isChunkLoadError(error)) throw error;
    if (this.state.reloading) return <FullPageSpinner label="Loading the new version of Valuator" />;
    return (
      <main id="main-content" tabIndex={-1} className="flex min-h-screen items-center justify-center bg-muted px-4 focus:outline-none">
        <Card className="w-full max-w-md">
          <CardContent className="pt-6">
            <div className="mb-4 flex items-center gap-2">
              <AlertCircle className="h-8 w-8 text-destructive" aria-hidden="true" />
              <h1 className="text-2xl font-bold">This page could not be loaded</h1>
            </div>
            <p className="text-sm text-muted-foreground">
              Check your connection and reload. If Valuator was just updated, reloading fetches the new version.
            </p>
            <Button className="mt-6" onClick={() => window.location.reload()}>
              Reload
            </Button>
          </CardContent>
        </Card>
      </main>
    );
  }
}
