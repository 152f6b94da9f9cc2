import { ChevronLeft, ChevronRight } from "lucide-react";
import { Button } from "@/components/ui/button";
import type { Pagination } from "@/lib/types";
import { pageWindow, showingText } from "../history-helpers";

interface HistoryPaginationProps {
  pagination: Pagination;
  onPageChange: (page: number) => void;
  disabled?: boolean;
}

/** Previous, up to five numbered pages around the current one, next; and which rows of how many are shown. */
export function HistoryPagination({ pagination, onPageChange, disabled }: HistoryPaginationProps) {
  const { page, limit, total, totalPages, hasPreviousPage, hasNextPage } = pagination;
  const pages = pageWindow(page, totalPages);
  return (
    <nav
      data-testid="history-pagination"
      aria-label="History pages"
      className="flex flex-col items-center justify-between gap-3 sm:flex-row"
    >
      <p className="text-sm text-muted-foreground" aria-live="polite">
        {showingText(page, limit, total)}
      </p>
      {totalPages > 1 ? (
        <div className="flex items-center gap-1">
          <Button
            type="button"
            variant="outline"
            size="sm"
            disabled={disabled || !hasPreviousPage}
            onClick={() => onPageChange(page - 1)}
            aria-label="Previous page"
          >
            <ChevronLeft aria-hidden="true" />
            <span className="hidden sm:inline">Previous</span>
          </Button>
          {pages.map((p) => (
            <Button
              key={p}
              type="button"
              size="sm"
              variant={p === page ? "default" : "outline"}
              className="min-w-9"
              aria-label={`Page ${p}`}
              aria-current={p === page ? "page" : undefined}
              disabled={disabled}
              onClick={() => {
                if (p !== page) onPageChange(p);
              }}
            >
              {p}
            </Button>
          ))}
          <Button
            type="button"
            variant="outline"
            size="sm"
            disabled={disabled || !hasNextPage}
            onClick={() => onPageChange(page + 1)}
            aria-label="Next page"
          >
            <span className="hidden sm:inline">Next</span>
            <ChevronRight aria-hidden="true" />
          </Button>
        </div>
      ) : null}
    </nav>
  );
}
