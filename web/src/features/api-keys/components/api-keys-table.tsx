import { Copy, Trash2 } from "lucide-react";
import { Button } from "@/components/ui/button";
import type { ApiKey } from "@/lib/types";
import { formatKeyDate, formatRateLimit } from "../api-key-helpers";
import { copyApiKey } from "../copy-key";
import { cardTable, TableScroll } from "@/components/ui/table-scroll";

interface ApiKeysTableProps {
  keys: ApiKey[];
  onDelete: (key: ApiKey) => void;
}

/**
 * The account's keys, newest first (the server's order): masked key with a copy button, limits, dates, delete. On a
 * phone each row is a small card (name and key across, the limit and dates below with their labels, delete in the
 * corner) instead of a 760 px table whose last columns would sit out of sight; the markup is the same table.
 */
export function ApiKeysTable({ keys, onDelete }: ApiKeysTableProps) {
  return (
    <TableScroll className="rounded-md border">
      <table data-testid="api-keys-table" className="w-full text-sm sm:min-w-[760px]">
        <caption className="sr-only">Your API keys</caption>
        <thead className={`${cardTable.head} bg-muted/50 text-left text-xs uppercase tracking-wide text-muted-foreground`}>
          <tr>
            <th scope="col" className="px-4 py-3 font-medium">Name</th>
            <th scope="col" className="px-4 py-3 font-medium">Key</th>
            <th scope="col" className="px-4 py-3 font-medium">Rate Limit</th>
            <th scope="col" className="px-4 py-3 font-medium">Created</th>
            <th scope="col" className="px-4 py-3 font-medium">Last Used</th>
            <th scope="col" className="px-4 py-3 text-right font-medium">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className={`divide-y ${cardTable.body}`}>
          {keys.map((key) => (
            <tr key={key.id} data-testid="api-key-row" className={`hover:bg-muted/30 ${cardTable.row[3]}`}>
              <th scope="row" className={`px-4 py-3 text-left font-medium sm:min-w-[10rem] sm:max-w-[16rem] ${cardTable.fullWidth}`}>
                {/* Breaks between words, and inside a long unbroken name only where it must (never letter by letter). */}
                <span className="break-words">{key.name}</span>
              </th>
              <td className={`px-4 py-3 ${cardTable.fullWidth}`}>
                <div className="flex items-center gap-1">
                  <code className="whitespace-nowrap rounded bg-muted px-2 py-1 font-mono text-xs">{key.keyPreview}</code>
                  <Button
                    type="button"
                    variant="ghost"
                    size="icon"
                    className="h-8 w-8"
                    aria-label={`Copy key ${key.name}`}
                    title={
                      key.keyValue
                        ? "Copy the full key"
                        : "This key can no longer be shown (the server's secret was changed). It still works; create a new key if you need to copy one."
                    }
                    disabled={!key.keyValue}
                    onClick={() => void copyApiKey(key.keyValue)}
                  >
                    <Copy aria-hidden="true" />
                  </Button>
                </div>
              </td>
              <td data-label="Rate limit" className={`whitespace-nowrap px-4 py-3 tabular-nums ${cardTable.cell}`}>
                {formatRateLimit(key)}
              </td>
              <td data-label="Created" className={`whitespace-nowrap px-4 py-3 ${cardTable.cell}`}>
                <time dateTime={key.createdAt}>{formatKeyDate(key.createdAt)}</time>
              </td>
              <td data-label="Last used" className={`whitespace-nowrap px-4 py-3 ${cardTable.cell}`}>
                {key.lastUsedAt ? (
                  <time dateTime={key.lastUsedAt}>{formatKeyDate(key.lastUsedAt)}</time>
                ) : (
                  <span className="text-muted-foreground">{formatKeyDate(null)}</span>
                )}
              </td>
              <td className={`px-4 py-3 text-right ${cardTable.corner}`}>
                <Button
                  type="button"
                  variant="ghost"
                  size="icon"
                  className="h-8 w-8 text-muted-foreground hover:bg-destructive/10 hover:text-destructive"
                  aria-label={`Delete key ${key.name}`}
                  title="Delete this key"
                  onClick={() => onDelete(key)}
                >
                  <Trash2 aria-hidden="true" />
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
