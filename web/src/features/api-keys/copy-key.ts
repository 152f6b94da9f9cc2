import { toast } from "@/components/ui/use-toast";

/**
 * Copies a full API key and says so with the spec's 'Copied' toast. The clipboard is missing on an insecure origin
 * and may be refused by the browser; the person is told instead of being left to paste nothing.
 */
export async function copyApiKey(value: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(value);
  } catch {
    toast({
      variant: "destructive",
      title: "Copy Failed",
      description: "The browser refused access to the clipboard. Try again, or copy the key from a secure (HTTPS) page.",
    });
    return false;
  }
  toast({ title: "Copied", description: "API key copied to clipboard" });
  return true;
}
