import { Controller, useForm, type UseFormSetError } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { Search } from "lucide-react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PendingButton } from "@/components/ui/pending-button";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { EXAMPLE_REQUEST } from "@/lib/example-valuation";
import { US_STATES } from "../us-states";

/** The property types of the contract (PropertyLookupRequest.propertyType), in the order offered. */
export const PROPERTY_TYPES = ["Single Family", "Condo", "Townhouse", "Multi-Family", "Manufactured", "Other"] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

/** The select's value for "not given" (a Radix select item cannot have the empty value). */
const NO_TYPE = "none";

const SQFT_MESSAGE = "Square feet must be a number from 100 to 100,000";
/** Shown under the field as "e.g. 1,850", never as a placeholder (issue 33: a placeholder read as a typed value). */
const SQFT_EXAMPLE = "1,850";

/** "1,850" and " 1850 " are 1850; "" is not given (undefined); anything else is NaN. */
function squareFeetOf(text: string): number | undefined {
  const t = text.trim().replace(/,/g, "");
  if (t === "") return undefined;
  return /^\d+(\.\d+)?$/.test(t) ? Number(t) : Number.NaN;
}

// Working-screens spec, section 5 ("Property lookup"), with the contract's length limits (PropertyLookupRequest).
// The optional details go beyond the spec: a home that is not on record is valued from them alone, so the
// server asks for the property type and the square feet at least (DESIGN.md section 5).
export const lookupSchema = z.object({
  address: z.string().trim().min(1, "Address is required").max(300, "Address must be at most 300 characters"),
  city: z.string().trim().min(1, "City is required").max(100, "City must be at most 100 characters"),
  state: z.string().min(1, "State is required"),
  zip: z
    .string()
    .trim()
    .min(5, "ZIP code must be at least 5 characters")
    .max(10, "ZIP code must be at most 10 characters"),
  propertyType: z
    .string()
    .transform((v): PropertyType | undefined => (PROPERTY_TYPES as readonly string[]).includes(v) ? (v as PropertyType) : undefined),
  squareFeet: z
    .string()
    .refine((v) => {
      const n = squareFeetOf(v);
      return n === undefined || (n >= 100 && n <= 100_000);
    }, SQFT_MESSAGE)
    .transform(squareFeetOf),
});

export type LookupValues = z.output<typeof lookupSchema>;
export type LookupInput = z.input<typeof lookupSchema>;

/** The form's fields, which are also the keys of a 400 answer's `fields` (and of a 404's missing facts). */
export const LOOKUP_FIELDS = ["address", "city", "state", "zip", "propertyType", "squareFeet"] as const satisfies readonly (keyof LookupInput)[];

const EMPTY: LookupInput = { address: "", city: "", state: "", zip: "", propertyType: "", squareFeet: "" };

interface LookupFormProps {
  pending: boolean;
  /** Called with valid values; setError lets the caller put the server's field messages on the fields. */
  onSubmit: (values: LookupValues, setError: UseFormSetError<LookupInput>) => void;
}

export function LookupForm({ pending, onSubmit }: LookupFormProps) {
  const {
    register,
    control,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<LookupInput, unknown, LookupValues>({
    resolver: zodResolver(lookupSchema),
    defaultValues: EMPTY,
  });

  const e = {
    address: errors.address?.message,
    city: errors.city?.message,
    state: errors.state?.message,
    zip: errors.zip?.message,
    propertyType: errors.propertyType?.message,
    squareFeet: errors.squareFeet?.message,
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-lg">Property Address</CardTitle>
        <CardDescription>Enter a US address. Each valuation uses 1 credit; an address we cannot value is free.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={handleSubmit((values) => onSubmit(values, setError))} noValidate className="space-y-4">
          <Field id="lookup-address" label="Street Address" error={e.address} example={EXAMPLE_REQUEST.address}>
            <Input
              autoComplete="address-line1"
              aria-required="true"
              {...fieldA11y("lookup-address", e.address, true)}
              {...register("address")}
            />
          </Field>
          <div className="grid gap-4 sm:grid-cols-[minmax(0,2fr)_minmax(0,2fr)_minmax(0,1.3fr)]">
            <Field id="lookup-city" label="City" error={e.city} example={EXAMPLE_REQUEST.city}>
              <Input
                autoComplete="address-level2"
                aria-required="true"
                {...fieldA11y("lookup-city", e.city, true)}
                {...register("city")}
              />
            </Field>
            <Field id="lookup-state" label="State" error={e.state}>
              <Controller
                control={control}
                name="state"
                render={({ field }) => (
                  <Select value={field.value} onValueChange={field.onChange} name={field.name}>
                    <SelectTrigger
                      {...fieldA11y("lookup-state", e.state)}
                      ref={field.ref}
                      onBlur={field.onBlur}
                      aria-required="true"
                    >
                      <SelectValue placeholder="Select a state" />
                    </SelectTrigger>
                    <SelectContent>
                      {US_STATES.map((s) => (
                        <SelectItem key={s.code} value={s.code}>
                          {s.name}
                        </SelectItem>
                      ))}
                    </SelectContent>
                  </Select>
                )}
              />
            </Field>
            <Field id="lookup-zip" label="ZIP Code" error={e.zip} example={EXAMPLE_REQUEST.zip}>
              <Input
                autoComplete="postal-code"
                inputMode="numeric"
                maxLength={10}
                aria-required="true"
                {...fieldA11y("lookup-zip", e.zip, true)}
                {...register("zip")}
              />
            </Field>
          </div>
          <fieldset data-testid="optional-details" className="space-y-3 rounded-md border border-dashed p-4">
            <legend className="px-1 text-sm font-medium">Optional details</legend>
            <p className="text-xs text-muted-foreground">
              Only for a home that is not on our records: it is valued from these details alone, so give at least
              its property type and square feet. A home on record is valued from its record.
            </p>
            <div className="grid gap-4 sm:grid-cols-2">
              <Field id="lookup-property-type" label="Property Type" error={e.propertyType}>
                <Controller
                  control={control}
                  name="propertyType"
                  render={({ field }) => (
                    <Select
                      value={field.value}
                      onValueChange={(v) => field.onChange(v === NO_TYPE ? "" : v)}
                      name={field.name}
                    >
                      <SelectTrigger
                        {...fieldA11y("lookup-property-type", e.propertyType)}
                        ref={field.ref}
                        onBlur={field.onBlur}
                      >
                        <SelectValue placeholder="Not specified" />
                      </SelectTrigger>
                      <SelectContent>
                        <SelectItem value={NO_TYPE}>Not specified</SelectItem>
                        {PROPERTY_TYPES.map((t) => (
                          <SelectItem key={t} value={t}>
                            {t}
                          </SelectItem>
                        ))}
                      </SelectContent>
                    </Select>
                  )}
                />
              </Field>
              <Field id="lookup-square-feet" label="Square Feet" error={e.squareFeet} example={SQFT_EXAMPLE}>
                <Input
                  inputMode="numeric"
                  maxLength={12}
                  {...fieldA11y("lookup-square-feet", e.squareFeet, true)}
                  {...register("squareFeet")}
                />
              </Field>
            </div>
          </fieldset>
          {/* Not disabled while the lookup runs, so focus stays here until the result's heading takes it. */}
          <PendingButton type="submit" pending={pending} className="w-full sm:w-auto">
            <Search aria-hidden="true" />
            {pending ? "Searching..." : "Get Property Valuation"}
          </PendingButton>
        </form>
      </CardContent>
    </Card>
  );
}
