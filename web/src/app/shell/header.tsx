import { Link } from "react-router";
import { Coins, Menu } from "lucide-react";
import { Button } from "@/components/ui/button";
import { useAuth } from "@/lib/auth";
import { ApiStatus } from "./api-status";

/** "1 credit", "100 credits", "12,500 credits". */
export function formatCredits(n: number): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? "credit" : "credits"}`;
}

/** The top bar of the signed-in shell: the menu button on small screens, the API status and the balance. */
export function Header({ onOpenMenu }: { onOpenMenu: () => void }) {
  const { user } = useAuth();
  return (
    <header className="sticky top-0 z-30 flex h-16 items-center gap-3 border-b bg-background/95 px-4 backdrop-blur sm:px-6">
      <Button
        type="button"
        variant="ghost"
        size="icon"
        className="md:hidden"
        aria-label="Open menu"
        onClick={onOpenMenu}
      >
        <Menu aria-hidden="true" />
      </Button>
      <div className="ml-auto flex items-center gap-3">
        <ApiStatus />
        {user ? (
          <Link
            to="/billing"
            data-testid="credits-balance"
            className="inline-flex items-center gap-1.5 rounded-full border px-3 py-1 text-xs font-medium hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
          >
            <Coins className="h-3.5 w-3.5 text-amber-500" aria-hidden="true" />
            {formatCredits(user.credits)}
          </Link>
        ) : null}
      </div>
    </header>
  );
}
