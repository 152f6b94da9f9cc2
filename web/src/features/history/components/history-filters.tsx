import { useState, type FormEvent } from "react";
import { Download, Search } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { EXAMPLE_REQUEST } from "@/lib/example-valuation";
import {
  keyFilterValue,
  parseKeyFilterValue,
  type HistoryFilters as Filters,
  type StatusFilter,
} from "../history-helpers";

interface HistoryFiltersProps {
  /** The filters in force; the form starts from them and edits a draft until Search. */
  applied: Filters;
  /** The names of the user's keys, for the API Key select. */
  keyNames: readonly string[];
  onApply: (filters: Filters) => void;
  onExport: () => void;
  exportDisabled?: boolean;
  /** The key list could not be read: only All Keys and Dashboard can be offered. */
  keysFailed?: boolean;
}

/** The filter bar: address text, key and status are edited freely and applied together by Search. */
export function HistoryFilters({ applied, keyNames, onApply, onExport, exportDisabled, keysFailed }: HistoryFiltersProps) {
  const [draft, setDraft] = useState<Filters>(applied);

  // A key filter for a key that was since deleted (its name stays in the history) must still show in the select.
  const names =
    draft.apiKey.kind === "key" && !keyNames.includes(draft.apiKey.name) ? [...keyNames, draft.apiKey.name] : keyNames;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply({ ...draft, search: draft.search.trim() });
  };

  return (
    <Card>
      <CardContent className="pt-6">
        <form
          onSubmit={submit}
          role="search"
          aria-label="Filter request history"
          className="grid gap-4 md:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_minmax(0,1fr)_auto_auto] md:items-end"
        >
          <div className="flex flex-col gap-2">
            <Label htmlFor="history-search">Search Address</Label>
            <Input
              id="history-search"
              type="search"
              placeholder={`e.g. ${EXAMPLE_REQUEST.address}`}
              maxLength={200}
              value={draft.search}
              onChange={(e) => setDraft({ ...draft, search: e.target.value })}
            />
          </div>
          <div className="flex flex-col gap-2 md:relative">
            <Label htmlFor="history-key">API Key</Label>
            <Select
              value={keyFilterValue(draft.apiKey)}
              onValueChange={(v) => setDraft({ ...draft, apiKey: parseKeyFilterValue(v) })}
            >
              <SelectTrigger id="history-key">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                <SelectItem value="all">All Keys</SelectItem>
                <SelectItem value="dashboard">Dashboard</SelectItem>
                {names.map((name) => (
                  <SelectItem key={name} value={keyFilterValue({ kind: "key", name })}>
                    {name}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
            {keysFailed ? (
              <p className="text-xs text-destructive md:absolute md:top-full md:mt-1" role="status">
                Failed to fetch API keys
              </p>
            ) : null}
          </div>
          <div className="flex flex-col gap-2">
            <Label htmlFor="history-status">Status</Label>
            <Select value={draft.status} onValueChange={(v) => setDraft({ ...draft, status: v as StatusFilter })}>
              <SelectTrigger id="history-status">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                <SelectItem value="all">All</SelectItem>
                <SelectItem value="success">Success</SelectItem>
                <SelectItem value="error">Error</SelectItem>
              </SelectContent>
            </Select>
          </div>
          <Button type="submit">
            <Search aria-hidden="true" />
            Search
          </Button>
          <Button type="button" variant="outline" onClick={onExport} disabled={exportDisabled}>
            <Download aria-hidden="true" />
            Export CSV
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
