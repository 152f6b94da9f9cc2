import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader } from "@/components/ui/card";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { errorMessage } from "@/lib/api";
import { applyServerFieldErrors } from "@/lib/form-errors";
import { changePassword } from "../api/settings-api";
import { SectionTitle } from "./section-title";

// Working-screens spec, section 5 ("Password change").
export const passwordSchema = z
  .object({
    currentPassword: z.string().min(1, "Current password is required"),
    newPassword: z.string().min(8, "New password must be at least 8 characters"),
    confirmPassword: z.string(),
  })
  .refine((v) => v.newPassword === v.confirmPassword, {
    message: "Passwords don't match",
    path: ["confirmPassword"],
  });
type PasswordValues = z.infer<typeof passwordSchema>;

const EMPTY: PasswordValues = { currentPassword: "", newPassword: "", confirmPassword: "" };

export function SecurityCard() {
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<PasswordValues>({ resolver: zodResolver(passwordSchema), mode: "onSubmit", defaultValues: EMPTY });

  const onSubmit = async (values: PasswordValues) => {
    try {
      await changePassword({ currentPassword: values.currentPassword, newPassword: values.newPassword });
      reset(EMPTY);
      toast({
        title: "Password Updated",
        description: "Your password has been changed. Other sessions were signed out.",
      });
    } catch (err) {
      // A wrong current password (or a new one the server refuses) is shown on its field; anything else is a toast.
      if (!applyServerFieldErrors(err, setError, ["currentPassword", "newPassword"])) {
        toast({
          variant: "destructive",
          title: "Error",
          description: errorMessage(err, "Failed to change password"),
        });
      }
    }
  };

  return (
    <Card>
      <CardHeader>
        <SectionTitle>Security</SectionTitle>
        <CardDescription>Change your password. Every other signed-in session will be signed out.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={handleSubmit(onSubmit)} noValidate className="space-y-4">
          <Field id="security-currentPassword" label="Current Password" error={errors.currentPassword?.message}>
            <Input
              type="password"
              autoComplete="current-password"
              {...fieldA11y("security-currentPassword", errors.currentPassword?.message)}
              {...register("currentPassword")}
            />
          </Field>
          <div className="grid gap-4 sm:grid-cols-2">
            <Field id="security-newPassword" label="New Password" error={errors.newPassword?.message}>
              <Input
                type="password"
                autoComplete="new-password"
                {...fieldA11y("security-newPassword", errors.newPassword?.message)}
                {...register("newPassword")}
              />
            </Field>
            <Field id="security-confirmPassword" label="Confirm New Password" error={errors.confirmPassword?.message}>
              <Input
                type="password"
                autoComplete="new-password"
                {...fieldA11y("security-confirmPassword", errors.confirmPassword?.message)}
                {...register("confirmPassword")}
              />
            </Field>
          </div>
          <Button type="submit" disabled={isSubmitting}>
            {isSubmitting ? "Updating..." : "Update Password"}
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
