import { Link } from "react-router";
import { Controller, useForm, type UseFormSetError } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { Sparkles, ShieldCheck, UserSearch } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PendingButton } from "@/components/ui/pending-button";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { EXAMPLE_REQUEST } from "@/lib/example-valuation";
import type { PersonQuery } from "@/lib/types";
import { useDemoResident } from "../api/person-audit-api";
import { PURPOSES, PURPOSE_VALUES } from "../person-types";

// Working-screens spec, section 5 ("Person lookup"); the field names are the request's, so a 400 answer's `fields`
// land on them directly.
export const personSchema = z.object({
  name: z.string().trim().min(1, "Name is required").max(200, "Name must be at most 200 characters"),
  street_line_1: z.string().trim().max(200, "Street address must be at most 200 characters"),
  city: z.string().trim().min(1, "City is required").max(100, "City must be at most 100 characters"),
  state_code: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/, "State must be 2 letters")
    .regex(/^[A-Z]{2}$/, "State must be uppercase"),
  postal_code: z.string().trim().max(10, "Zip code must be at most 10 characters"),
  purpose: z.enum(PURPOSE_VALUES, { error: "Choose a permissible purpose" }),
});

export type PersonValues = z.output<typeof personSchema>;
export type PersonInput = z.input<typeof personSchema>;

/** The form's fields, which are also the keys of a 400 answer's `fields`. */
export const PERSON_FIELDS = [
  "name",
  "street_line_1",
  "city",
  "state_code",
  "postal_code",
  "purpose",
] as const satisfies readonly (keyof PersonInput)[];

const EMPTY: PersonInput = {
  name: "",
  street_line_1: "",
  city: "",
  state_code: "",
  postal_code: "",
  purpose: "real_estate_transaction",
};

/** Where the compliance note's link leads: the Lookup audit tab of this screen. */
export const AUDIT_TAB_HREF = "/person-lookup?tab=audit";

interface PersonFormProps {
  pending: boolean;
  /** Called with valid values; setError lets the caller put the server's field messages on the fields. */
  onSubmit: (values: PersonValues, setError: UseFormSetError<PersonInput>) => void;
}

export function PersonForm({ pending, onSubmit }: PersonFormProps) {
  const {
    register,
    control,
    handleSubmit,
    setError,
    reset,
    getValues,
    formState: { errors },
  } = useForm<PersonInput, unknown, PersonValues>({
    resolver: zodResolver(personSchema),
    defaultValues: EMPTY,
  });
  // A development server names a demo resident (production answers 404: no button).
  const demoResident = useDemoResident().data;

  const fillDemo = (resident: PersonQuery) => {
    reset({
      name: resident.name,
      street_line_1: resident.street_line_1 ?? "",
      city: resident.city,
      state_code: resident.state_code,
      postal_code: resident.postal_code ?? "",
      purpose: resident.purpose ?? getValues("purpose"),
    });
  };

  const e = {
    name: errors.name?.message,
    street_line_1: errors.street_line_1?.message,
    city: errors.city?.message,
    state_code: errors.state_code?.message,
    postal_code: errors.postal_code?.message,
    purpose: errors.purpose?.message,
  };

  const state = register("state_code");

  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-lg">Person Details</CardTitle>
        <CardDescription>
          Enter a full first name and a last name, and where the person lives. Each person found uses 5 credits; a
          search with no match is free.
        </CardDescription>
        {demoResident ? (
          <div className="pt-2">
            <Button type="button" variant="outline" size="sm" onClick={() => fillDemo(demoResident)}>
              <Sparkles aria-hidden="true" />
              Try a demo resident
            </Button>
          </div>
        ) : null}
      </CardHeader>
      <CardContent>
        <form onSubmit={handleSubmit((values) => onSubmit(values, setError))} noValidate className="space-y-4">
          <Field id="person-name" label="Full Name" hint="The full first name (not an initial) and the last name" error={e.name}>
            <Input
              autoComplete="off"
              placeholder="e.g. Jennifer Northcott"
              aria-required="true"
              {...fieldA11y("person-name", e.name)}
              {...register("name")}
            />
          </Field>
          <Field id="person-street" label="Street Address" hint="Optional; narrows the match" error={e.street_line_1}>
            <Input
              autoComplete="off"
              placeholder={`e.g. ${EXAMPLE_REQUEST.address}`}
              {...fieldA11y("person-street", e.street_line_1)}
              {...register("street_line_1")}
            />
          </Field>
          <div className="grid gap-4 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_minmax(0,1.3fr)]">
            <Field id="person-city" label="City" error={e.city}>
              <Input
                autoComplete="off"
                placeholder={`e.g. ${EXAMPLE_REQUEST.city}`}
                aria-required="true"
                {...fieldA11y("person-city", e.city)}
                {...register("city")}
              />
            </Field>
            <Field id="person-state" label="State" error={e.state_code}>
              <Input
                autoComplete="off"
                placeholder={`e.g. ${EXAMPLE_REQUEST.state}`}
                maxLength={2}
                aria-required="true"
                className="uppercase placeholder:normal-case"
                {...fieldA11y("person-state", e.state_code)}
                {...state}
                onChange={(ev) => {
                  // Auto-uppercased as typed (spec): the value itself, not only how it looks.
                  ev.target.value = ev.target.value.toUpperCase();
                  return state.onChange(ev);
                }}
              />
            </Field>
            <Field id="person-zip" label="Zip Code" error={e.postal_code}>
              <Input
                autoComplete="off"
                inputMode="numeric"
                placeholder={`e.g. ${EXAMPLE_REQUEST.zip}`}
                maxLength={10}
                {...fieldA11y("person-zip", e.postal_code)}
                {...register("postal_code")}
              />
            </Field>
          </div>
          <Field id="person-purpose" label="Permissible purpose" error={e.purpose}>
            <Controller
              control={control}
              name="purpose"
              render={({ field }) => (
                <Select value={field.value} onValueChange={field.onChange} name={field.name}>
                  <SelectTrigger
                    {...fieldA11y("person-purpose", e.purpose)}
                    ref={field.ref}
                    onBlur={field.onBlur}
                    aria-required="true"
                  >
                    <SelectValue placeholder="Select a purpose" />
                  </SelectTrigger>
                  <SelectContent>
                    {PURPOSES.map((p) => (
                      <SelectItem key={p.value} value={p.value}>
                        {p.label}
                      </SelectItem>
                    ))}
                  </SelectContent>
                </Select>
              )}
            />
          </Field>
          {/* Not disabled while the search runs, so focus stays here until the outcome's heading takes it. */}
          <PendingButton type="submit" pending={pending} className="w-full sm:w-auto">
            <UserSearch aria-hidden="true" />
            {pending ? "Searching..." : "Search Person (5 Credits)"}
          </PendingButton>
          <p data-testid="compliance-note" className="flex items-start gap-2 text-xs text-muted-foreground">
            <ShieldCheck className="mt-0.5 h-4 w-4 shrink-0" aria-hidden="true" />
            <span>
              Every person lookup is logged with its purpose for compliance (see the{" "}
              <Link to={AUDIT_TAB_HREF} className="font-medium text-primary underline-offset-4 hover:underline">
                lookup audit
              </Link>
              ). Use it only for the permissible purpose you select.
            </span>
          </p>
        </form>
      </CardContent>
    </Card>
  );
}
