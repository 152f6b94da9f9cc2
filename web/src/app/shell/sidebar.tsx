import { useState } from "react";
import { Link, useLocation } from "react-router";
import { ChevronDown, LogOut, MessageCircle } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Collapsible, CollapsibleContent, CollapsibleTrigger } from "@/components/ui/collapsible";
import { Logo } from "@/components/ui/logo";
import { useAuth } from "@/lib/auth";
import { isOperator } from "@/lib/roles";
import { cn } from "@/lib/utils";
import {
  ADMIN_NAV,
  NAV,
  isGroupActive,
  isItemActive,
  readGroupState,
  writeGroupState,
  type GroupId,
  type GroupState,
  type NavGroup,
  type NavLinkItem,
} from "./nav-items";

interface SidebarProps {
  /** The navigation landmark's name: "Main" in the desktop rail, "Main menu" in the phone's menu. */
  navLabel: string;
  /** Called with the link's path when a link is followed (the mobile menu closes itself). */
  onNavigate?: (to: string) => void;
  /** Opens the Support panel: given in the phone menu, whose header has no room for the Support button. */
  onOpenSupport?: () => void;
}

/** The navigation, the signed-in user and the logout button; used as the desktop rail and inside the mobile menu. */
export function Sidebar({ navLabel, onNavigate, onOpenSupport }: SidebarProps) {
  const { pathname } = useLocation();
  const { user, logout } = useAuth();
  const [groups, setGroups] = useState<GroupState>(readGroupState);

  const setGroupOpen = (id: GroupId, open: boolean) => {
    setGroups((prev) => {
      const next = { ...prev, [id]: open };
      writeGroupState(next);
      return next;
    });
  };

  return (
    <div className="flex h-full flex-col bg-sidebar">
      <div className="flex h-16 items-center border-b px-4">
        <Link
          to="/dashboard"
          onClick={() => onNavigate?.("/dashboard")}
          aria-label="Valuator dashboard"
          className="rounded-md focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
        >
          <Logo />
        </Link>
      </div>

      <nav aria-label={navLabel} className="flex-1 overflow-y-auto px-3 py-4">
        <ul className="space-y-1">
          {NAV.map((entry) =>
            entry.kind === "group" ? (
              <li key={entry.id}>
                <SidebarGroup
                  group={entry}
                  pathname={pathname}
                  open={groups[entry.id]}
                  onOpenChange={(open) => setGroupOpen(entry.id, open)}
                  onNavigate={onNavigate}
                />
              </li>
            ) : (
              <li key={entry.to}>
                <SidebarLink item={entry} active={isItemActive(entry, pathname)} onNavigate={onNavigate} />
              </li>
            ),
          )}
          {isOperator(user) ? (
            <li>
              <SidebarLink item={ADMIN_NAV} active={isItemActive(ADMIN_NAV, pathname)} onNavigate={onNavigate} />
            </li>
          ) : null}
        </ul>
      </nav>

      <div className="border-t p-4">
        {onOpenSupport ? (
          <Button
            type="button"
            variant="outline"
            className="mb-3 w-full justify-start"
            aria-haspopup="dialog"
            data-testid="menu-support-button"
            onClick={onOpenSupport}
          >
            <MessageCircle aria-hidden="true" />
            Support
          </Button>
        ) : null}
        {user ? (
          <div className="mb-3 min-w-0">
            <p data-testid="user-name" className="truncate text-sm font-medium">
              {user.fullName || user.email}
            </p>
            <p data-testid="user-email" className="truncate text-xs text-muted-foreground">
              {user.email}
            </p>
          </div>
        ) : null}
        <Button type="button" variant="outline" className="w-full justify-start" onClick={() => void logout()}>
          <LogOut aria-hidden="true" />
          Log out
        </Button>
      </div>
    </div>
  );
}

const itemClass =
  "flex w-full items-center gap-3 rounded-md px-3 py-2 text-sm font-medium transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring";

function SidebarLink({
  item,
  active,
  nested = false,
  onNavigate,
}: {
  item: NavLinkItem;
  active: boolean;
  nested?: boolean;
  onNavigate?: (to: string) => void;
}) {
  const Icon = item.icon;
  return (
    <Link
      to={item.to}
      onClick={() => onNavigate?.(item.to)}
      aria-current={active ? "page" : undefined}
      className={cn(
        itemClass,
        nested && "pl-9",
        active ? "bg-primary text-primary-foreground" : "text-muted-foreground hover:bg-accent hover:text-foreground",
      )}
    >
      <Icon className="h-4 w-4 shrink-0" aria-hidden="true" />
      {item.label}
    </Link>
  );
}

function SidebarGroup({
  group,
  pathname,
  open,
  onOpenChange,
  onNavigate,
}: {
  group: NavGroup;
  pathname: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onNavigate?: (to: string) => void;
}) {
  const active = isGroupActive(group, pathname);
  const Icon = group.icon;
  return (
    <Collapsible open={open} onOpenChange={onOpenChange}>
      <CollapsibleTrigger
        data-active={active ? "true" : undefined}
        className={cn(
          itemClass,
          "cursor-pointer",
          active ? "bg-accent text-primary" : "text-muted-foreground hover:bg-accent hover:text-foreground",
        )}
      >
        <Icon className="h-4 w-4 shrink-0" aria-hidden="true" />
        <span className="flex-1 text-left">{group.label}</span>
        <ChevronDown
          aria-hidden="true"
          className={cn("h-4 w-4 shrink-0 transition-transform", open ? "rotate-0" : "-rotate-90")}
        />
      </CollapsibleTrigger>
      <CollapsibleContent>
        <ul className="mt-1 space-y-1">
          {group.items.map((item) => (
            <li key={item.to}>
              <SidebarLink item={item} active={isItemActive(item, pathname)} nested onNavigate={onNavigate} />
            </li>
          ))}
        </ul>
      </CollapsibleContent>
    </Collapsible>
  );
}
