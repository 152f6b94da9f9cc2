import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from "@/components/ui/alert-dialog";
import { PendingButton } from "@/components/ui/pending-button";
import { toast } from "@/components/ui/use-toast";
import type { ApiKey } from "@/lib/types";
import { useDeleteApiKey } from "../api/api-keys-api";
import { DELETE_FAILED, failureDetail } from "../api-key-helpers";

interface DeleteKeyDialogProps {
  /** The key to delete; null keeps the dialog closed. */
  apiKey: ApiKey | null;
  onClose: () => void;
}

/**
 * Asks before deleting a key: a deleted key fails every call at once and cannot be brought back. Focus goes back to
 * the row's Delete button on Cancel; once the key is deleted its row is gone, and focus goes to the page's heading.
 */
export function DeleteKeyDialog({ apiKey, onClose }: DeleteKeyDialogProps) {
  const remove = useDeleteApiKey();

  const onOpenChange = (open: boolean) => {
    if (!open && !remove.isPending) onClose();
  };

  const onConfirm = () => {
    if (!apiKey) return;
    remove.mutate(apiKey.id, {
      onSuccess: () => {
        toast({ title: "API Key Deleted", description: `"${apiKey.name}" no longer works.` });
        onClose();
      },
      onError: (err) => {
        toast({ variant: "destructive", title: DELETE_FAILED, description: failureDetail(err) });
      },
    });
  };

  return (
    <AlertDialog open={apiKey !== null} onOpenChange={onOpenChange}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Delete API key?</AlertDialogTitle>
          <AlertDialogDescription>
            {`"${apiKey?.name ?? ""}" will be deleted. Every call made with it will fail at once, on every server, and it cannot be restored. Its name stays in your request history.`}
          </AlertDialogDescription>
        </AlertDialogHeader>
        <AlertDialogFooter>
          <AlertDialogCancel type="button" disabled={remove.isPending}>
            Cancel
          </AlertDialogCancel>
          <PendingButton type="button" variant="destructive" pending={remove.isPending} onClick={onConfirm}>
            {remove.isPending ? "Deleting..." : "Delete Key"}
          </PendingButton>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
