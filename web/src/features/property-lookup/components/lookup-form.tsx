import { Controller, useForm, type UseFormSetError } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { Search } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { EXAMPLE_REQUEST } from "@/lib/example-valuation";
import { US_STATES } from "../us-states";

// Working-screens spec, section 5 ("Property lookup"), with the contract's length limits (PropertyLookupRequest).
export const lookupSchema = z.object({
  address: z.string().trim().min(1, "Address is required").max(300, "Address must be at most 300 characters"),
  city: z.string().trim().min(1, "City is required").max(100, "City must be at most 100 characters"),
  state: z.string().min(1, "State is required"),
  zip: z
    .string()
    .trim()
    .min(5, "ZIP code must be at least 5 characters")
    .max(10, "ZIP code must be at most 10 characters"),
});

export type LookupValues = z.output<typeof lookupSchema>;
export type LookupInput = z.input<typeof lookupSchema>;

/** The form's fields, which are also the keys of a 400 answer's `fields`. */
export const LOOKUP_FIELDS = ["address", "city", "state", "zip"] as const satisfies readonly (keyof LookupInput)[];

const EMPTY: LookupInput = { address: "", city: "", state: "", zip: "" };

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
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-lg">Property Address</CardTitle>
        <CardDescription>Enter a US address. Each valuation uses 1 credit; an address we cannot value is free.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={handleSubmit((values) => onSubmit(values, setError))} noValidate className="space-y-4">
          <Field id="lookup-address" label="Street Address" error={e.address}>
            <Input
              autoComplete="address-line1"
              placeholder={EXAMPLE_REQUEST.address}
              aria-required="true"
              {...fieldA11y("lookup-address", e.address)}
              {...register("address")}
            />
          </Field>
          <div className="grid gap-4 sm:grid-cols-[minmax(0,2fr)_minmax(0,2fr)_minmax(0,1.3fr)]">
            <Field id="lookup-city" label="City" error={e.city}>
              <Input
                autoComplete="address-level2"
                placeholder={EXAMPLE_REQUEST.city}
                aria-required="true"
                {...fieldA11y("lookup-city", e.city)}
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
            <Field id="lookup-zip" label="ZIP Code" error={e.zip}>
              <Input
                autoComplete="postal-code"
                inputMode="numeric"
                placeholder={EXAMPLE_REQUEST.zip}
                maxLength={10}
                aria-required="true"
                {...fieldA11y("lookup-zip", e.zip)}
                {...register("zip")}
              />
            </Field>
          </div>
          <Button type="submit" disabled={pending} className="w-full sm:w-auto">
            <Search aria-hidden="true" />
            {pending ? "Searching..." : "Get Property Valuation"}
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
