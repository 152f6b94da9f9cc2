import { useEffect, useId, useRef, useState, type DragEvent } from "react";
import { Download, FileSpreadsheet, Loader2, Upload } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader } from "@/components/ui/card";
import { cn } from "@/lib/utils";
import { ACCEPT_ATTRIBUTE, FILE_LIMIT_TEXT } from "../batch-helpers";

interface UploadCardProps {
  /** The user's plan limit and the next plan's ("Your Free plan: up to 100 properties per upload (Basic: 1,000)"). */
  planLimitLine: string;
  /** The name of the file being read by the server, or null when none is. */
  readingFileName: string | null;
  onFile: (file: File) => void;
  onDownloadExample: () => void;
  exampleBusy: boolean;
  /** Focus the zone when shown (on coming back from the mapping step, not on opening the screen). */
  focusOnMount?: boolean;
}

/** Whether a drag carries files (and not, say, a selected piece of text). */
function draggingFiles(e: DragEvent | globalThis.DragEvent): boolean {
  return Array.from(e.dataTransfer?.types ?? []).includes("Files");
}

/**
 * The upload step: a zone that takes a dropped file or opens the file chooser (it is a button, so Enter and Space
 * work), the limits, and the 'Download Examples' template.
 */
export function UploadCard({
  planLimitLine,
  readingFileName,
  onFile,
  onDownloadExample,
  exampleBusy,
  focusOnMount = false,
}: UploadCardProps) {
  const inputRef = useRef<HTMLInputElement>(null);
  const zoneRef = useRef<HTMLButtonElement>(null);
  const [dragging, setDragging] = useState(false);
  const limitId = useId();
  const reading = readingFileName !== null;

  useEffect(() => {
    if (focusOnMount) zoneRef.current?.focus();
  }, [focusOnMount]);

  // A file dropped next to the zone would make the browser leave the page to open it: keep it here instead.
  useEffect(() => {
    const keep = (e: globalThis.DragEvent) => {
      if (draggingFiles(e)) e.preventDefault();
    };
    window.addEventListener("dragover", keep);
    window.addEventListener("drop", keep);
    return () => {
      window.removeEventListener("dragover", keep);
      window.removeEventListener("drop", keep);
    };
  }, []);

  const onDragOver = (e: DragEvent<HTMLButtonElement>) => {
    if (!draggingFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = reading ? "none" : "copy";
    if (!reading) setDragging(true);
  };

  const onDragLeave = (e: DragEvent<HTMLButtonElement>) => {
    // Leaving for a child of the zone is not leaving the zone.
    if (e.relatedTarget instanceof Node && e.currentTarget.contains(e.relatedTarget)) return;
    setDragging(false);
  };

  const onDrop = (e: DragEvent<HTMLButtonElement>) => {
    e.preventDefault();
    setDragging(false);
    if (reading) return;
    const file = e.dataTransfer.files[0];
    if (file) onFile(file);
  };

  return (
    <Card>
      <CardHeader className="flex flex-col gap-4 space-y-0 sm:flex-row sm:items-start sm:justify-between">
        <div className="space-y-1.5">
          <h2 className="text-lg font-semibold leading-none tracking-tight">Upload File</h2>
          <CardDescription>
            One row per property, with either a full-address column or separate street, city, state and ZIP columns.
          </CardDescription>
        </div>
        <Button type="button" variant="outline" onClick={onDownloadExample} disabled={exampleBusy} className="shrink-0">
          <Download aria-hidden="true" />
          Download Examples
        </Button>
      </CardHeader>
      <CardContent>
        <button
          ref={zoneRef}
          type="button"
          data-testid="drop-zone"
          aria-describedby={limitId}
          aria-busy={reading || undefined}
          // Not disabled while the file is read: a disabled button drops focus to the page's body. The reading is
          // said by the status line below; then the mapping's heading takes focus, or a toast says what failed.
          aria-disabled={reading || undefined}
          onClick={() => {
            if (!reading) inputRef.current?.click();
          }}
          onDragEnter={onDragOver}
          onDragOver={onDragOver}
          onDragLeave={onDragLeave}
          onDrop={onDrop}
          className={cn(
            "flex w-full cursor-pointer flex-col items-center justify-center gap-3 rounded-lg border-2 border-dashed px-6 py-12 text-center transition-colors",
            "focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2",
            "hover:border-primary/60 hover:bg-muted/40 aria-disabled:cursor-wait",
            dragging ? "border-primary bg-primary/5" : "border-input",
          )}
        >
          {reading ? (
            <>
              <Loader2 className="h-10 w-10 animate-spin text-primary" aria-hidden="true" />
              <span className="font-medium">Reading file…</span>
              <span className="max-w-full truncate text-sm text-muted-foreground">{readingFileName}</span>
            </>
          ) : (
            <>
              <span className="flex h-14 w-14 items-center justify-center rounded-full bg-primary/10 text-primary">
                {dragging ? (
                  <FileSpreadsheet className="h-7 w-7" aria-hidden="true" />
                ) : (
                  <Upload className="h-7 w-7" aria-hidden="true" />
                )}
              </span>
              <span className="text-base font-medium">
                {dragging ? "Drop the file to upload it" : "Drag and drop your file here, or click to browse"}
              </span>
            </>
          )}
        </button>
        <p role="status" className="sr-only">
          {reading ? `Reading ${readingFileName}…` : ""}
        </p>
        <p id={limitId} className="mt-3 text-center text-sm text-muted-foreground">
          {FILE_LIMIT_TEXT}.{" "}
          <span data-testid="batch-plan-limit" className="block sm:inline">
            {planLimitLine}.
          </span>
        </p>
        <input
          ref={inputRef}
          type="file"
          accept={ACCEPT_ATTRIBUTE}
          aria-label="Choose a CSV or Excel file"
          data-testid="file-input"
          className="hidden"
          tabIndex={-1}
          onChange={(e) => {
            const file = e.target.files?.[0];
            // Cleared at once, so choosing the same file again (after fixing it, say) is seen as a change.
            e.target.value = "";
            if (file) onFile(file);
          }}
        />
      </CardContent>
    </Card>
  );
}
