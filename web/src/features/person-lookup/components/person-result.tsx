import type { ReactNode } from "react";
import { History, Mail, MapPin, Phone, User, Users } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import {
  associateName,
  formatLatLong,
  formatLineType,
  formatPhone,
  localityLine,
  matchPercent,
  oneLineAddress,
  streetLine,
} from "../person-helpers";
import type { FindPersonMeta, PersonAddress, PersonResult as Result } from "../person-types";

// The six result cards of the spec's Person Lookup screen. An empty list says so in one line instead of leaving
// an empty card.

function ResultCard({
  title,
  icon,
  testId,
  children,
}: {
  title: string;
  icon: ReactNode;
  testId: string;
  children: ReactNode;
}) {
  return (
    <Card data-testid={testId} className="min-w-0">
      <CardHeader className="pb-3">
        <CardTitle className="flex items-center gap-2 text-base">
          {icon}
          {title}
        </CardTitle>
      </CardHeader>
      <CardContent className="min-w-0 break-words text-sm">{children}</CardContent>
    </Card>
  );
}

function NoneOnRecord() {
  return <p className="text-muted-foreground">None on record</p>;
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex flex-wrap justify-between gap-x-4 gap-y-1 py-1">
      <dt className="text-muted-foreground">{label}</dt>
      <dd className="min-w-0 text-right font-medium">{children}</dd>
    </div>
  );
}

function AddressBlock({ address }: { address: PersonAddress }) {
  const street = streetLine(address);
  return (
    <div className="min-w-0">
      {street ? <p className="font-medium">{street}</p> : null}
      <p>{localityLine(address)}</p>
      {address.lat_long ? (
        <p data-testid="lat-long" className="text-xs text-muted-foreground">
          Latitude, longitude: {formatLatLong(address.lat_long.latitude, address.lat_long.longitude)}
        </p>
      ) : null}
    </div>
  );
}

const icon = "h-4 w-4 text-muted-foreground";

export function PersonResult({ result, meta }: { result: Result; meta?: FindPersonMeta }) {
  const alternates = result.alternate_names ?? [];
  const current = result.current_addresses ?? [];
  const historical = result.historical_addresses ?? [];
  const phones = result.phones ?? [];
  const emails = result.emails ?? [];
  const associates = result.associated_people ?? [];
  const foundAt = result.found_at_address;
  const foundAtLine = foundAt ? oneLineAddress(foundAt) : "";
  const foundAtIsCurrent = current.some((a) => oneLineAddress(a) === foundAtLine);

  return (
    <div data-testid="person-result" className="space-y-4">
      {/* The result's heading: it takes focus when the result arrives, so a screen reader announces it. */}
      <h2 className="text-lg font-semibold">Person found</h2>
      <div className="grid gap-4 md:grid-cols-2">
        <ResultCard title="Person Information" icon={<User className={icon} aria-hidden="true" />} testId="person-info">
          <div className="mb-2 flex flex-wrap items-center gap-2">
            <p className="text-lg font-semibold" data-testid="person-name">
              {result.name}
            </p>
            {result.source === "demo" ? (
              <Badge
                variant="warning"
                data-testid="demo-badge"
                title="This record comes from the generated demo directory, not from real public records."
              >
                Demo data
              </Badge>
            ) : null}
          </div>
          <dl>
            <Row label="Alternate names">{alternates.length ? alternates.join(", ") : "None on record"}</Row>
            <Row label="Age range">{result.age_range || "Not on record"}</Row>
            <Row label="Gender">{result.gender || "Not on record"}</Row>
            <Row label="Match score">
              <span data-testid="match-score">{matchPercent(result.match_score)}</span>
            </Row>
          </dl>
          {result.ambiguous ? (
            <p
              data-testid="ambiguous-note"
              className="mt-3 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-amber-900"
            >
              Several people match; this is the closest. Add a street address or zip code to narrow the search.
            </p>
          ) : null}
        </ResultCard>

        <ResultCard title="Current Address" icon={<MapPin className={icon} aria-hidden="true" />} testId="current-address">
          {current.length ? (
            <ul className="space-y-3">
              {current.map((a, i) => (
                <li key={i}>
                  <AddressBlock address={a} />
                </li>
              ))}
            </ul>
          ) : (
            <NoneOnRecord />
          )}
          {foundAt && !foundAtIsCurrent ? (
            <p data-testid="found-at" className="mt-3 text-xs text-muted-foreground">
              Matched at {foundAtLine}
            </p>
          ) : null}
        </ResultCard>

        <ResultCard
          title="Recent Addresses"
          icon={<History className={icon} aria-hidden="true" />}
          testId="recent-addresses"
        >
          {historical.length ? (
            <ol className="space-y-3">
              {historical.map((a, i) => (
                <li key={i} className="flex gap-3">
                  <span
                    className="flex h-6 w-6 shrink-0 items-center justify-center rounded-full bg-muted text-xs font-semibold"
                    aria-hidden="true"
                  >
                    {i + 1}
                  </span>
                  <AddressBlock address={a} />
                </li>
              ))}
            </ol>
          ) : (
            <NoneOnRecord />
          )}
        </ResultCard>

        <ResultCard title="Phone Numbers" icon={<Phone className={icon} aria-hidden="true" />} testId="phone-numbers">
          {phones.length ? (
            <ul className="space-y-2">
              {phones.map((p, i) => (
                <li key={i} className="flex flex-wrap items-center justify-between gap-2">
                  <span className="font-medium tabular-nums">{formatPhone(p.phone_number)}</span>
                  {p.line_type ? <Badge variant="secondary">{formatLineType(p.line_type)}</Badge> : null}
                </li>
              ))}
            </ul>
          ) : (
            <NoneOnRecord />
          )}
        </ResultCard>

        <ResultCard title="Email Addresses" icon={<Mail className={icon} aria-hidden="true" />} testId="email-addresses">
          {emails.length ? (
            <ul className="space-y-2">
              {emails.map((email, i) => (
                <li key={i} className="break-all font-medium">
                  {email}
                </li>
              ))}
            </ul>
          ) : (
            <NoneOnRecord />
          )}
        </ResultCard>

        <ResultCard
          title="Associated People"
          icon={<Users className={icon} aria-hidden="true" />}
          testId="associated-people"
        >
          {associates.length ? (
            <ul className="space-y-2">
              {associates.map((p, i) => (
                <li key={i} className="flex flex-wrap items-center justify-between gap-2">
                  <span className="font-medium">{associateName(p) || "Unnamed"}</span>
                  {p.relation ? <span className="text-muted-foreground">{formatLineType(p.relation)}</span> : null}
                </li>
              ))}
            </ul>
          ) : (
            <NoneOnRecord />
          )}
        </ResultCard>
      </div>
      {meta ? (
        <p data-testid="person-meta" className="text-xs text-muted-foreground">
          {meta.creditsUsed} {meta.creditsUsed === 1 ? "credit" : "credits"} used, {meta.creditsRemaining} left
          <span className="break-all"> · Request {meta.requestId}</span>
        </p>
      ) : null}
    </div>
  );
}
