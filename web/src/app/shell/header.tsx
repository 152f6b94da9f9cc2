import { Link } from "react-router";
import { Coins, Menu, MessageCircle } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Logo } from "@/components/ui/logo";
import { useAuth } from "@/lib/auth";
import { balanceParts, type Balance } from "@/lib/balance";
import { ApiStatus } from "./api-status";

/**
 * The top bar of the signed-in shell: on small screens the menu button and the brand (the sidebar, which carries it on
 * wide screens, is hidden there), then the API status and the balance.
 */
export function Header({
  onOpenMenu,
  menuOpen = false,
  onOpenSupport,
  supportOpen = false,
}: {
  onOpenMenu: () => void;
  menuOpen?: boolean;
  /** Opens the Support panel; the button shows from the `sm` width up (a phone has it in the menu: no room here). */
  onOpenSupport?: () => void;
  supportOpen?: boolean;
}) {
  const { user } = useAuth();
  return (
    <header className="sticky top-0 z-30 flex h-16 items-center gap-2 border-b bg-background/95 px-3 backdrop-blur sm:gap-3 sm:px-6">
      <Button
        type="button"
        variant="ghost"
        size="icon"
        className="md:hidden"
        aria-label="Open menu"
        aria-haspopup="dialog"
        aria-expanded={menuOpen}
        onClick={onOpenMenu}
      >
        <Menu aria-hidden="true" />
      </Button>
      <Link
        to="/dashboard"
        aria-label="Valuator dashboard"
        data-testid="header-brand"
        className="shrink-0 rounded-md focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring md:hidden"
      >
        {/* Below 380 px the name would crowd the balance off the screen: the mark alone, its name still read out. */}
        <Logo compact nameClassName="max-[379px]:sr-only" />
      </Link>
      <div className="ml-auto flex min-w-0 items-center gap-2 sm:gap-3">
        {onOpenSupport ? (
          <Button
            type="button"
            variant="ghost"
            size="sm"
            className="hidden sm:inline-flex"
            aria-haspopup="dialog"
            aria-expanded={supportOpen}
            data-testid="support-button"
            onClick={onOpenSupport}
          >
            <MessageCircle aria-hidden="true" />
            Support
          </Button>
        ) : null}
        <ApiStatus />
        {user ? (
          <Link
            to="/billing"
            data-testid="credits-balance"
            className="inline-flex min-w-0 items-center gap-1.5 rounded-full border px-2.5 py-1 text-xs sm:px-3 font-medium leading-tight hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
          >
            <Coins className="h-3.5 w-3.5 shrink-0 text-amber-500" aria-hidden="true" />
            <BalanceLabel balance={user.creditBalance} />
          </Link>
        ) : null}
      </div>
    </header>
  );
}

/**
 * The balance as balanceText writes it (the Billing card shows the same string), in two unbreakable halves: on a
 * phone "0 credits · 10 overage ($0.30)" wraps after the dot instead of widening the header past the screen.
 */
function BalanceLabel({ balance }: { balance: Balance }) {
  const [credits, overage] = balanceParts(balance);
  if (overage === undefined) return <span className="whitespace-nowrap">{credits}</span>;
  return (
    <span>
      <span className="whitespace-nowrap">{`${credits} ·`}</span> <span className="whitespace-nowrap">{overage}</span>
    </span>
  );
}
