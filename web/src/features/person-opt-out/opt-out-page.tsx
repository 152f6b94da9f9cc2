import { useEffect, useRef, useState } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { ExternalLink, MailCheck, UserX } from "lucide-react";
import { PageIntro, PublicLayout } from "@/components/public-layout";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader } from "@/components/ui/card";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { ApiError, errorMessage } from "@/lib/api";
import { EXAMPLE_REQUEST } from "@/lib/example-valuation";
import type { OptOutRequested } from "@/lib/types";
import { useSendOptOut, type OptOutRequest } from "./opt-out-api";

// The opt-out page: anyone, signed in or not, can ask to be removed from the person-lookup directory. The request
// is POST /api/person/opt-out; if exactly one listing matches, the server emails a confirmation link to the address
// given, and only opening that link and confirming (/opt-out/confirm) removes the listing. The answer is the same
// whatever is listed, and its message replaces the form. A development server also answers the link itself, shown
// here as the password reset shows its token.

const optOutSchema = z.object({
  name: z.string().trim().min(1, "Full name is required").max(200, "Name must be at most 200 characters"),
  street_line_1: z
    .string()
    .trim()
    .min(1, "Street address is required")
    .max(200, "Street address must be at most 200 characters"),
  city: z.string().trim().min(1, "City is required").max(100, "City must be at most 100 characters"),
  state_code: z
    .string()
    .trim()
    .min(1, "State is required")
    .regex(/^[A-Za-z]{2}$/, "State must be 2 letters")
    .regex(/^[A-Z]{2}$/, "State must be uppercase"),
  postal_code: z.string().trim().max(10, "Zip code must be at most 10 characters"),
  email: z
    .string()
    .trim()
    .min(1, "Email is required")
    .max(254, "Email must be at most 254 characters")
    .pipe(z.email("Invalid email address")),
});

type OptOutInput = z.input<typeof optOutSchema>;
type OptOutValues = z.output<typeof optOutSchema>;

const EMPTY: OptOutInput = { name: "", street_line_1: "", city: "", state_code: "", postal_code: "", email: "" };

const FIELD_NAMES = Object.keys(EMPTY) as Array<keyof OptOutInput>;

function isFieldName(name: string): name is keyof OptOutInput {
  return (FIELD_NAMES as string[]).includes(name);
}

const sectionTitle = "text-xl font-semibold leading-none tracking-tight";

function OptOutForm({ onDone }: { onDone: (answer: OptOutRequested, email: string) => void }) {
  const send = useSendOptOut();
  const [formError, setFormError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<OptOutInput, unknown, OptOutValues>({
    resolver: zodResolver(optOutSchema),
    defaultValues: EMPTY,
  });

  const onSubmit = handleSubmit((values) => {
    setFormError(null);
    const payload: OptOutRequest = {
      name: values.name,
      street_line_1: values.street_line_1,
      city: values.city,
      state_code: values.state_code,
      email: values.email,
    };
    if (values.postal_code) payload.postal_code = values.postal_code;
    send.mutate(payload, {
      onSuccess: (res) => onDone(res, values.email),
      onError: (err) => {
        // A 400 names the bad fields: show each message beside its field.
        let shownAtField = false;
        if (err instanceof ApiError && err.body) {
          const fields = err.body.fields ?? (err.body.field ? { [err.body.field]: err.body.error } : {});
          for (const [name, message] of Object.entries(fields)) {
            if (!isFieldName(name)) continue;
            setError(name, { type: "server", message }, { shouldFocus: !shownAtField });
            shownAtField = true;
          }
        }
        if (!shownAtField) {
          setFormError(errorMessage(err, "Failed to send your request. Please try again."));
        }
      },
    });
  });

  const e = {
    name: errors.name?.message,
    street_line_1: errors.street_line_1?.message,
    city: errors.city?.message,
    state_code: errors.state_code?.message,
    postal_code: errors.postal_code?.message,
    email: errors.email?.message,
  };

  const state = register("state_code");

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5">
      <Field id="opt-out-name" label="Full Name" hint="Your first and last name, as you might be listed" error={e.name}>
        <Input
          {...fieldA11y("opt-out-name", e.name)}
          {...register("name")}
          autoComplete="name"
          aria-required="true"
          placeholder="e.g. Jennifer Northcott"
        />
      </Field>
      <Field id="opt-out-street" label="Street Address" error={e.street_line_1}>
        <Input
          {...fieldA11y("opt-out-street", e.street_line_1)}
          {...register("street_line_1")}
          autoComplete="address-line1"
          aria-required="true"
          placeholder={`e.g. ${EXAMPLE_REQUEST.address}`}
        />
      </Field>
      <div className="grid gap-5 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_minmax(0,1.3fr)]">
        <Field id="opt-out-city" label="City" error={e.city}>
          <Input
            {...fieldA11y("opt-out-city", e.city)}
            {...register("city")}
            autoComplete="address-level2"
            aria-required="true"
            placeholder={`e.g. ${EXAMPLE_REQUEST.city}`}
          />
        </Field>
        <Field id="opt-out-state" label="State" error={e.state_code}>
          <Input
            {...fieldA11y("opt-out-state", e.state_code)}
            {...state}
            onChange={(ev) => {
              // Auto-uppercased as typed: the value itself, not only how it looks.
              ev.target.value = ev.target.value.toUpperCase();
              return state.onChange(ev);
            }}
            autoComplete="address-level1"
            aria-required="true"
            maxLength={2}
            className="uppercase placeholder:normal-case"
            placeholder={`e.g. ${EXAMPLE_REQUEST.state}`}
          />
        </Field>
        <Field
          id="opt-out-zip"
          label={
            <>
              Zip Code <span className="font-normal text-muted-foreground">(optional)</span>
            </>
          }
          error={e.postal_code}
        >
          <Input
            {...fieldA11y("opt-out-zip", e.postal_code)}
            {...register("postal_code")}
            autoComplete="postal-code"
            inputMode="numeric"
            maxLength={10}
            placeholder={`e.g. ${EXAMPLE_REQUEST.zip}`}
          />
        </Field>
      </div>
      <Field
        id="opt-out-email"
        label="Email for the confirmation link"
        hint="We send the link that confirms the removal here, and use the address for nothing else."
        error={e.email}
      >
        <Input
          {...fieldA11y("opt-out-email", e.email)}
          {...register("email")}
          type="email"
          autoComplete="email"
          aria-required="true"
          placeholder="e.g. you@example.com"
        />
      </Field>
      {formError ? (
        <p role="alert" className="text-sm font-medium text-destructive">
          {formError}
        </p>
      ) : null}
      <Button type="submit" className="w-full sm:w-auto" disabled={send.isPending}>
        <UserX aria-hidden="true" />
        {send.isPending ? "Sending..." : "Request Opt-Out"}
      </Button>
    </form>
  );
}

/** What the server answered: its message (the same whatever is listed) and, in development only, the link itself. */
function OptOutSent({ answer, email, onAgain }: { answer: OptOutRequested; email: string; onAgain: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  // The form that had focus is gone: focus goes to the answer, which a screen reader then reads.
  useEffect(() => ref.current?.focus(), []);
  return (
    <div className="space-y-4">
      <div
        ref={ref}
        tabIndex={-1}
        role="status"
        data-testid="opt-out-sent"
        className="flex items-start gap-3 rounded-md outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        <MailCheck className="mt-0.5 h-5 w-5 shrink-0 text-primary" aria-hidden="true" />
        <div className="min-w-0 space-y-2">
          <p className="break-words">{answer.message}</p>
          <p className="break-words text-sm text-muted-foreground">
            Nothing is removed until the link sent to <span className="font-medium text-foreground">{email}</span> is
            opened and confirmed. It works once, within 24 hours.
          </p>
        </div>
      </div>
      {answer.confirmUrl ? (
        <div
          data-testid="opt-out-dev-link"
          className="rounded-md border border-dashed border-amber-300 bg-amber-50 p-3 text-sm text-amber-900"
        >
          <p className="mb-1 font-medium">Development mode: no email is sent.</p>
          <a href={answer.confirmUrl} className="inline-flex items-center gap-1 font-medium underline underline-offset-2">
            <ExternalLink className="h-4 w-4" aria-hidden="true" />
            Open the confirmation link (development only)
          </a>
        </div>
      ) : null}
      <Button type="button" variant="outline" onClick={onAgain}>
        Ask for another listing
      </Button>
    </div>
  );
}

export function OptOutPage() {
  const [sent, setSent] = useState<{ answer: OptOutRequested; email: string } | null>(null);

  return (
    <PublicLayout>
      <div className="mx-auto max-w-3xl space-y-10 px-4 py-12 sm:px-6">
        <PageIntro
          title="Opt out of person lookup"
          subtitle="Ask us to remove your listing from the directory behind person lookup."
        />

        <div className="space-y-3 text-muted-foreground">
          <p>
            Valuator&apos;s person lookup searches a directory of people that its operator loads from public and
            commercially available records. You can ask to be removed from it.
          </p>
          <p>
            Give your name and home address as you might be listed, and an email address. If one listing matches
            them, we email you a link; when you open it and confirm, that listing is deleted everywhere it appears
            (including where your name is shown as someone&apos;s relative or associate) and kept out of future
            imports of the directory. The link works once, within 24 hours.
          </p>
          <p>
            We answer the same way whether or not a listing exists, so this form cannot be used to find out whether
            someone is in the directory.
          </p>
        </div>

        <Card>
          <CardHeader>
            <h2 className={sectionTitle}>Your details</h2>
            <CardDescription>Enter your name, the address where you live, and where to send the link.</CardDescription>
          </CardHeader>
          <CardContent>
            {sent !== null ? (
              <OptOutSent answer={sent.answer} email={sent.email} onAgain={() => setSent(null)} />
            ) : (
              <OptOutForm onDone={(answer, email) => setSent({ answer, email })} />
            )}
          </CardContent>
        </Card>
      </div>
    </PublicLayout>
  );
}
