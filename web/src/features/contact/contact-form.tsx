import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { Send } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/components/ui/use-toast";
import { ApiError, errorMessage } from "@/lib/api";
import type { ContactRequest } from "@/lib/types";
import { useSendContactMessage } from "./contact-api";

// The contact form (spec, product-and-account sections 2, 3 and 5): first name, last name, email, company
// (optional), subject and message; everything but the company is required. Limits follow api/openapi.yaml.

type Subject = ContactRequest["subject"];

const SUBJECTS: ReadonlyArray<{ value: Subject; label: string }> = [
  { value: "general", label: "General Inquiry" },
  { value: "technical", label: "Technical Support" },
  { value: "billing", label: "Billing Question" },
  { value: "partnership", label: "Partnership" },
  { value: "feedback", label: "Product Feedback" },
  { value: "other", label: "Other" },
];

const SUBJECT_VALUES = SUBJECTS.map((s) => s.value) as [Subject, ...Subject[]];

const required = (message: string, max: number, tooLong: string) =>
  z.string().trim().min(1, message).max(max, tooLong);

const contactSchema = z.object({
  firstName: required("First name is required", 100, "First name must be at most 100 characters"),
  lastName: required("Last name is required", 100, "Last name must be at most 100 characters"),
  email: z
    .string()
    .trim()
    .min(1, "Email is required")
    .max(254, "Email must be at most 254 characters")
    .pipe(z.email("Please enter a valid email address")),
  company: z.string().trim().max(200, "Company must be at most 200 characters"),
  subject: z
    .string()
    .min(1, "Please select a subject")
    .pipe(z.enum(SUBJECT_VALUES, "Please select a subject")),
  message: required("Message is required", 5000, "Message must be at most 5,000 characters"),
});

type ContactInput = z.input<typeof contactSchema>;
type ContactValues = z.output<typeof contactSchema>;

const EMPTY: ContactInput = { firstName: "", lastName: "", email: "", company: "", subject: "", message: "" };

const FIELD_NAMES = Object.keys(EMPTY) as Array<keyof ContactInput>;

function isFieldName(name: string): name is keyof ContactInput {
  return (FIELD_NAMES as string[]).includes(name);
}

export function ContactForm() {
  const send = useSendContactMessage();
  const {
    register,
    control,
    handleSubmit,
    reset,
    setError,
    formState: { errors },
  } = useForm<ContactInput, unknown, ContactValues>({
    resolver: zodResolver(contactSchema),
    defaultValues: EMPTY,
  });

  const onSubmit = handleSubmit((values) => {
    const payload: ContactRequest = {
      firstName: values.firstName,
      lastName: values.lastName,
      email: values.email,
      company: values.company || null,
      subject: values.subject,
      message: values.message,
    };
    send.mutate(payload, {
      onSuccess: () => {
        toast({ title: "Message Sent", description: "Thanks for reaching out. We'll reply within 24 hours." });
        reset(EMPTY);
      },
      onError: (err) => {
        // A 400 names the bad fields: show each message beside its field as well as in the toast.
        if (err instanceof ApiError && err.body) {
          const fields = err.body.fields ?? (err.body.field ? { [err.body.field]: err.body.error } : {});
          let focused = false;
          for (const [name, message] of Object.entries(fields)) {
            if (!isFieldName(name)) continue;
            setError(name, { type: "server", message }, { shouldFocus: !focused });
            focused = true;
          }
        }
        toast({
          variant: "destructive",
          title: "Error",
          description: errorMessage(err, "Failed to send message. Please try again."),
        });
      },
    });
  });

  const e = {
    firstName: errors.firstName?.message,
    lastName: errors.lastName?.message,
    email: errors.email?.message,
    company: errors.company?.message,
    subject: errors.subject?.message,
    message: errors.message?.message,
  };

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5">
      <div className="grid gap-5 sm:grid-cols-2">
        <Field id="contact-first-name" label="First Name" error={e.firstName}>
          <Input
            {...fieldA11y("contact-first-name", e.firstName)}
            {...register("firstName")}
            autoComplete="given-name"
            aria-required="true"
            placeholder="Jane"
          />
        </Field>
        <Field id="contact-last-name" label="Last Name" error={e.lastName}>
          <Input
            {...fieldA11y("contact-last-name", e.lastName)}
            {...register("lastName")}
            autoComplete="family-name"
            aria-required="true"
            placeholder="Doe"
          />
        </Field>
      </div>
      <Field id="contact-email" label="Email" error={e.email}>
        <Input
          {...fieldA11y("contact-email", e.email)}
          {...register("email")}
          type="email"
          autoComplete="email"
          aria-required="true"
          placeholder="jane@example.com"
        />
      </Field>
      <Field
        id="contact-company"
        label={
          <>
            Company <span className="font-normal text-muted-foreground">(optional)</span>
          </>
        }
        error={e.company}
      >
        <Input
          {...fieldA11y("contact-company", e.company)}
          {...register("company")}
          autoComplete="organization"
          placeholder="Acme Realty"
        />
      </Field>
      <Field id="contact-subject" label="Subject" error={e.subject}>
        <Controller
          control={control}
          name="subject"
          render={({ field }) => (
            <Select value={field.value} onValueChange={field.onChange} name={field.name}>
              <SelectTrigger
                {...fieldA11y("contact-subject", e.subject)}
                ref={field.ref}
                onBlur={field.onBlur}
                aria-required="true"
              >
                <SelectValue placeholder="Select a subject" />
              </SelectTrigger>
              <SelectContent>
                {SUBJECTS.map((s) => (
                  <SelectItem key={s.value} value={s.value}>
                    {s.label}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          )}
        />
      </Field>
      <Field id="contact-message" label="Message" error={e.message}>
        <Textarea
          {...fieldA11y("contact-message", e.message)}
          {...register("message")}
          rows={6}
          aria-required="true"
          placeholder="Tell us how we can help..."
        />
      </Field>
      <Button type="submit" className="w-full sm:w-auto" disabled={send.isPending}>
        <Send aria-hidden="true" />
        {send.isPending ? "Sending..." : "Send Message"}
      </Button>
    </form>
  );
}
