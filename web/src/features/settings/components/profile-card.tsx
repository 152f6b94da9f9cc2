import { useState } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader } from "@/components/ui/card";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { useAuth } from "@/lib/auth";
import { errorMessage } from "@/lib/api";
import type { User } from "@/lib/types";
import { applyServerFieldErrors } from "@/lib/form-errors";
import { updateProfile } from "../api/settings-api";
import { SectionTitle } from "./section-title";

// Working-screens spec, section 5 ("Profile").
export const profileSchema = z.object({
  fullName: z.string().trim().min(2, "Full name must be at least 2 characters").max(200, "Full name is too long"),
  company: z.string().trim().max(200, "Company name is too long"),
  email: z.string().trim().pipe(z.email("Please enter a valid email address")),
  currentPassword: z.string(),
});
type ProfileValues = z.infer<typeof profileSchema>;

/** Whether the email typed differs from the saved one as the server compares them (trimmed, any case). */
export function emailChanges(typed: string, saved: string): boolean {
  return typed.trim().toLowerCase() !== saved.trim().toLowerCase();
}

/**
 * The profile rules for an account whose saved email is `savedEmail`: a new email needs the current password (the
 * server refuses it otherwise, so that a session alone cannot move the account to another address).
 */
export function profileSchemaFor(savedEmail: string) {
  return profileSchema.superRefine((v, ctx) => {
    if (emailChanges(v.email, savedEmail) && v.currentPassword === "") {
      ctx.addIssue({
        code: "custom",
        path: ["currentPassword"],
        message: "Enter your current password to change your email",
      });
    }
  });
}

export function ProfileCard({ user }: { user: User }) {
  const { refreshUser } = useAuth();
  // The email the account has on the server: the one typed is compared with it to ask for the password.
  const [savedEmail, setSavedEmail] = useState(user.email);
  const {
    register,
    handleSubmit,
    setError,
    reset,
    watch,
    formState: { errors, isSubmitting },
  } = useForm<ProfileValues>({
    resolver: zodResolver(profileSchemaFor(savedEmail)),
    mode: "onSubmit",
    defaultValues: { fullName: user.fullName, company: user.company ?? "", email: user.email, currentPassword: "" },
  });
  const needsPassword = emailChanges(watch("email") ?? "", savedEmail);

  const onSubmit = async (values: ProfileValues) => {
    try {
      const saved = await updateProfile({
        fullName: values.fullName,
        company: values.company,
        email: values.email,
        ...(needsPassword ? { currentPassword: values.currentPassword } : {}),
      });
      setSavedEmail(saved.email);
      reset({ ...values, currentPassword: "" });
      toast({ title: "Profile Updated", description: "Your profile has been saved." });
      await refreshUser();
    } catch (err) {
      // A 409 means the email belongs to another account, a 400 on currentPassword a wrong password; the server
      // names the field.
      applyServerFieldErrors(err, setError, ["fullName", "company", "email", "currentPassword"]);
      toast({ variant: "destructive", title: "Error", description: errorMessage(err, "Failed to update profile") });
    }
  };

  return (
    <Card>
      <CardHeader>
        <SectionTitle>Profile Information</SectionTitle>
        <CardDescription>Your name, company and the email you sign in with.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={handleSubmit(onSubmit)} noValidate className="space-y-4">
          <div className="grid gap-4 sm:grid-cols-2">
            <Field id="profile-fullName" label="Full Name" error={errors.fullName?.message}>
              <Input
                autoComplete="name"
                {...fieldA11y("profile-fullName", errors.fullName?.message)}
                {...register("fullName")}
              />
            </Field>
            <Field id="profile-company" label="Company" hint="Optional." error={errors.company?.message}>
              <Input
                autoComplete="organization"
                {...fieldA11y("profile-company", errors.company?.message)}
                {...register("company")}
              />
            </Field>
          </div>
          <Field id="profile-email" label="Email" error={errors.email?.message}>
            <Input
              type="email"
              autoComplete="email"
              {...fieldA11y("profile-email", errors.email?.message)}
              {...register("email")}
            />
          </Field>
          {needsPassword ? (
            <Field
              id="profile-currentPassword"
              label="Current password"
              hint="Needed to change the email you sign in with. We will tell your current address."
              error={errors.currentPassword?.message}
            >
              <Input
                type="password"
                autoComplete="current-password"
                required
                {...fieldA11y("profile-currentPassword", errors.currentPassword?.message)}
                {...register("currentPassword")}
              />
            </Field>
          ) : null}
          <Button type="submit" disabled={isSubmitting}>
            {isSubmitting ? "Saving..." : "Save Changes"}
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
