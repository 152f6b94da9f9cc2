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
import { applyServerFieldErrors, updateProfile } from "../api/settings-api";
import { SectionTitle } from "./section-title";

// Working-screens spec, section 5 ("Profile").
export const profileSchema = z.object({
  fullName: z.string().trim().min(2, "Full name must be at least 2 characters").max(200, "Full name is too long"),
  company: z.string().trim().max(200, "Company name is too long"),
  email: z.string().trim().pipe(z.email("Please enter a valid email address")),
});
type ProfileValues = z.infer<typeof profileSchema>;

export function ProfileCard({ user }: { user: User }) {
  const { refreshUser } = useAuth();
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<ProfileValues>({
    resolver: zodResolver(profileSchema),
    mode: "onSubmit",
    defaultValues: { fullName: user.fullName, company: user.company ?? "", email: user.email },
  });

  const onSubmit = async (values: ProfileValues) => {
    try {
      await updateProfile({ fullName: values.fullName, company: values.company, email: values.email });
      reset(values);
      toast({ title: "Profile Updated", description: "Your profile has been saved." });
      await refreshUser();
    } catch (err) {
      // A 409 means the email belongs to another account; the server names the field.
      applyServerFieldErrors(err, setError, ["fullName", "company", "email"]);
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
          <Button type="submit" disabled={isSubmitting}>
            {isSubmitting ? "Saving..." : "Save Changes"}
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
