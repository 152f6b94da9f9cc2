import type { LucideIcon } from "lucide-react";
import {
  BarChart3,
  Briefcase,
  Building2,
  CreditCard,
  History,
  KeyRound,
  Search,
  Settings,
  TrendingUp,
  Upload,
  UserCog,
  UserSearch,
} from "lucide-react";

export interface NavLinkItem {
  kind: "link";
  label: string;
  to: string;
  icon: LucideIcon;
  /** Further paths at which this item counts as the current one. */
  alsoActiveAt?: string[];
  /** Every path under this prefix counts as this item's page too (the console's sections). */
  activeUnder?: string;
}

export interface NavGroup {
  kind: "group";
  /** The key under which the group's expanded state is remembered. */
  id: GroupId;
  label: string;
  icon: LucideIcon;
  items: NavLinkItem[];
}

export type GroupId = "properties" | "analytics";
export type NavEntry = NavLinkItem | NavGroup;

/** The sidebar of the signed-in shell (product-and-account spec, section 2, "Authenticated shell"). */
export const NAV: NavEntry[] = [
  {
    kind: "group",
    id: "properties",
    label: "Properties",
    icon: Building2,
    items: [
      {
        kind: "link",
        label: "Single Lookup",
        to: "/dashboard",
        icon: Search,
        alsoActiveAt: ["/property-lookup", "/"],
      },
      { kind: "link", label: "Batch Upload", to: "/batch-upload", icon: Upload },
      { kind: "link", label: "Markets", to: "/markets", icon: TrendingUp },
      { kind: "link", label: "Portfolios", to: "/portfolios", icon: Briefcase, activeUnder: "/portfolios/" },
    ],
  },
  { kind: "link", label: "Person Lookup", to: "/person-lookup", icon: UserSearch },
  { kind: "link", label: "API Keys", to: "/api-keys", icon: KeyRound },
  {
    kind: "group",
    id: "analytics",
    label: "Analytics",
    icon: BarChart3,
    items: [
      { kind: "link", label: "Reporting", to: "/reporting", icon: BarChart3 },
      { kind: "link", label: "History", to: "/history", icon: History },
    ],
  },
  { kind: "link", label: "Billing", to: "/billing", icon: CreditCard },
  { kind: "link", label: "Settings", to: "/settings", icon: Settings },
];

/** The operator console's entry, shown to operators only (the profile's role is "admin"; issue 27). */
export const ADMIN_NAV: NavLinkItem = {
  kind: "link",
  label: "Admin",
  to: "/admin",
  icon: UserCog,
  activeUnder: "/admin/",
};

/** Whether the item is the current page at this path (a trailing slash is ignored). */
export function isItemActive(item: NavLinkItem, pathname: string): boolean {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  if (item.activeUnder && path.startsWith(item.activeUnder)) return true;
  return item.to === path || (item.alsoActiveAt ?? []).includes(path);
}

export function isGroupActive(group: NavGroup, pathname: string): boolean {
  return group.items.some((item) => isItemActive(item, pathname));
}

export const SIDEBAR_GROUPS_KEY = "sidebar-groups";
export type GroupState = Record<GroupId, boolean>;
const DEFAULT_GROUPS: GroupState = { properties: true, analytics: true };

/** The remembered expanded/collapsed state of the groups; both expanded on a first visit or unreadable data. */
export function readGroupState(): GroupState {
  try {
    const raw = localStorage.getItem(SIDEBAR_GROUPS_KEY);
    if (!raw) return { ...DEFAULT_GROUPS };
    const saved: unknown = JSON.parse(raw);
    if (!saved || typeof saved !== "object") return { ...DEFAULT_GROUPS };
    const s = saved as Partial<Record<GroupId, unknown>>;
    return {
      properties: typeof s.properties === "boolean" ? s.properties : DEFAULT_GROUPS.properties,
      analytics: typeof s.analytics === "boolean" ? s.analytics : DEFAULT_GROUPS.analytics,
    };
  } catch {
    return { ...DEFAULT_GROUPS };
  }
}

export function writeGroupState(state: GroupState): void {
  try {
    localStorage.setItem(SIDEBAR_GROUPS_KEY, JSON.stringify(state));
  } catch {
    // Storage may be full or disabled (private mode); the sidebar still works, it just forgets.
  }
}
