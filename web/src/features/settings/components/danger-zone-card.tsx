import { useState } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { useNavigate } from "react-router";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "@/components/ui/alert-dialog";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader } from "@/components/ui/card";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PendingButton } from "@/components/ui/pending-button";
import { toast } from "@/components/ui/use-toast";
import { useAuth } from "@/lib/auth";
import { errorMessage } from "@/lib/api";
import { applyServerFieldErrors } from "@/lib/form-errors";
import { closeAccount } from "../api/settings-api";
import { SectionTitle } from "./section-title";

const closeSchema = z.object({ password: z.string().min(1, "Password is required") });
type CloseValues = z.infer<typeof closeSchema>;

export function DangerZoneCard() {
  const { clearSession } = useAuth();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<CloseValues>({ resolver: zodResolver(closeSchema), mode: "onSubmit", defaultValues: { password: "" } });

  const onOpenChange = (next: boolean) => {
    if (isSubmitting) return;
    setOpen(next);
    if (!next) reset();
  };

  const onSubmit = async ({ password }: CloseValues) => {
    try {
      await closeAccount({ password });
      setOpen(false);
      // Leave the signed-in area first, so the sign-in guard does not send the visitor to /login on the way out.
      navigate("/");
      clearSession();
      toast({ title: "Account Closed", description: "Your account has been closed." });
    } catch (err) {
      applyServerFieldErrors(err, setError, ["password"]);
      toast({ variant: "destructive", title: "Error", description: errorMessage(err, "Failed to close account") });
    }
  };

  return (
    <Card className="border-destructive/50">
      <CardHeader>
        <SectionTitle className="text-destructive">Danger Zone</SectionTitle>
        <CardDescription>Closing your account cannot be undone.</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
        <p className="text-sm text-muted-foreground">
          You will be signed out everywhere, your API keys stop working and any remaining credits are forfeited.
        </p>
        <AlertDialog open={open} onOpenChange={onOpenChange}>
          <AlertDialogTrigger asChild>
            <Button type="button" variant="destructive" className="shrink-0">
              Delete Account
            </Button>
          </AlertDialogTrigger>
          <AlertDialogContent>
            <form onSubmit={handleSubmit(onSubmit)} noValidate className="space-y-4">
              <AlertDialogHeader>
                <AlertDialogTitle>Delete your account?</AlertDialogTitle>
                <AlertDialogDescription asChild>
                  <div className="space-y-2">
                    <p>
                      Your account will be closed and every session signed out. Your API keys will stop working and
                      you will no longer be able to sign in.
                    </p>
                    <p>Any remaining credits are forfeited and will not be refunded.</p>
                    <p>
                      We keep the records of your account for up to 2 years after closure, as our terms require, and
                      then erase them.
                    </p>
                  </div>
                </AlertDialogDescription>
              </AlertDialogHeader>
              <Field id="close-password" label="Password" error={errors.password?.message} hint="Enter your password to confirm.">
                <Input
                  type="password"
                  autoComplete="current-password"
                  {...fieldA11y("close-password", errors.password?.message)}
                  {...register("password")}
                />
              </Field>
              <AlertDialogFooter>
                <AlertDialogCancel type="button" disabled={isSubmitting}>
                  Cancel
                </AlertDialogCancel>
                <PendingButton type="submit" variant="destructive" pending={isSubmitting}>
                  {isSubmitting ? "Deleting..." : "Delete my account"}
                </PendingButton>
              </AlertDialogFooter>
            </form>
          </AlertDialogContent>
        </AlertDialog>
      </CardContent>
    </Card>
  );
}
