import { useState } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { CheckCircle2, UserX } from "lucide-react";
import { PageIntro, PublicLayout } from "@/components/public-layout";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader } from "@/components/ui/card";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { ApiError, errorMessage } from "@/lib/api";
import { EXAMPLE_REQUEST } from "@/lib/example-valuation";
import { useSendOptOut, type OptOutRequest } from "./opt-out-api";

// The opt-out page: anyone, signed in or not, can ask to be removed from the person-lookup directory. The request
// is POST /api/person/opt-out; the server answers the same whether or not a record existed, and its message
// replaces the form.

const optOutSchema = z.object({
  name: z.string().trim().min(1, "Full name is required").max(200, "Name must be at most 200 characters"),
  street_line_1: z
    .string()
    .trim()
    .min(1, "Street address is required")
    .max(300, "Street address must be at most 300 characters"),
  city: z.string().trim().min(1, "City is required").max(100, "City must be at most 100 characters"),
  state_code: z
    .string()
    .trim()
    .min(1, "State is required")
    .regex(/^[A-Za-z]{2}$/, "State must be 2 letters")
    .regex(/^[A-Z]{2}$/, "State must be uppercase"),
  postal_code: z.string().trim().max(10, "Zip code must be at most 10 characters"),
});

type OptOutInput = z.input<typeof optOutSchema>;
type OptOutValues = z.output<typeof optOutSchema>;

const EMPTY: OptOutInput = { name: "", street_line_1: "", city: "", state_code: "", postal_code: "" };

const FIELD_NAMES = Object.keys(EMPTY) as Array<keyof OptOutInput>;

function isFieldName(name: string): name is keyof OptOutInput {
  return (FIELD_NAMES as string[]).includes(name);
}

const sectionTitle = "text-xl font-semibold leading-none tracking-tight";

function OptOutForm({ onDone }: { onDone: (message: string) => void }) {
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
      postal_code: values.postal_code,
    };
    send.mutate(payload, {
      onSuccess: (res) => onDone(res.message),
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
  };

  const state = register("state_code");

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5">
      <Field id="opt-out-name" label="Full Name" error={e.name}>
        <Input
          {...fieldA11y("opt-out-name", e.name)}
          {...register("name")}
          autoComplete="name"
          aria-required="true"
          placeholder="Jane Q. Public"
        />
      </Field>
      <Field id="opt-out-street" label="Street Address" error={e.street_line_1}>
        <Input
          {...fieldA11y("opt-out-street", e.street_line_1)}
          {...register("street_line_1")}
          autoComplete="address-line1"
          aria-required="true"
          placeholder={EXAMPLE_REQUEST.address}
        />
      </Field>
      <div className="grid gap-5 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_minmax(0,1.3fr)]">
        <Field id="opt-out-city" label="City" error={e.city}>
          <Input
            {...fieldA11y("opt-out-city", e.city)}
            {...register("city")}
            autoComplete="address-level2"
            aria-required="true"
            placeholder={EXAMPLE_REQUEST.city}
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
            className="uppercase"
            placeholder={EXAMPLE_REQUEST.state}
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
            placeholder={EXAMPLE_REQUEST.zip}
          />
        </Field>
      </div>
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

export function OptOutPage() {
  const [done, setDone] = useState<string | null>(null);

  return (
    <PublicLayout>
      <div className="mx-auto max-w-3xl space-y-10 px-4 py-12 sm:px-6">
        <PageIntro
          title="Opt out of person lookup"
          subtitle="Ask us to remove your record from the directory behind person lookup."
        />

        <div className="space-y-3 text-muted-foreground">
          <p>
            Valuator&apos;s person lookup searches a directory of people that its operator loads from public and
            commercially available records. You can ask to be removed from it.
          </p>
          <p>
            When you do, any record matching the name and address you give is deleted, and that person is kept out
            of future imports of the directory. We answer the same way whether or not a record existed, so this form
            cannot be used to find out whether someone is in the directory.
          </p>
        </div>

        <Card>
          <CardHeader>
            <h2 className={sectionTitle}>Your details</h2>
            <CardDescription>Enter your name and the address where you live.</CardDescription>
          </CardHeader>
          <CardContent>
            {done !== null ? (
              <div role="status" className="flex items-start gap-3">
                <CheckCircle2 className="mt-0.5 h-5 w-5 shrink-0 text-primary" aria-hidden="true" />
                <p>{done}</p>
              </div>
            ) : (
              <OptOutForm onDone={setDone} />
            )}
          </CardContent>
        </Card>
      </div>
    </PublicLayout>
  );
}
