import { useEffect, useState } from "react";
import { Card, CardContent, CardDescription, CardHeader } from "@/components/ui/card";
import { Label } from "@/components/ui/label";
import { Switch } from "@/components/ui/switch";
import { toast } from "@/components/ui/use-toast";
import { useAuth } from "@/lib/auth";
import { errorMessage } from "@/lib/api";
import type { NotificationPreferences } from "@/lib/types";
import { updateNotifications } from "../api/settings-api";
import { SectionTitle } from "./section-title";

type PreferenceKey = keyof NotificationPreferences;

// Each switch says exactly what it sends (the server sends it, with a link that turns it off); one with nothing
// behind it says so.
const PREFERENCES: { key: PreferenceKey; label: string; description: string }[] = [
  {
    key: "emailNotifications",
    label: "Email notifications",
    description:
      "An email when a batch job finishes, fails or stops for lack of credits, and about your plan: a refund, a " +
      "declined renewal, a scheduled downgrade or cancellation, and each month's credits. Receipts for payments, " +
      "and an email when your account is signed in to from a new browser or network (a security notice), are " +
      "always sent.",
  },
  {
    key: "usageAlerts",
    label: "Low balance alerts",
    description:
      "An email when your balance falls under 50 credits, when overage starts, and when 80% of your overage " +
      "limit is used.",
  },
  {
    key: "weeklyReports",
    label: "Weekly usage report",
    description:
      "Every Monday, last week's calls, credits used, success rate and top endpoints (weeks with activity only).",
  },
  {
    key: "marketingEmails",
    label: "Product news",
    description: "We don't send any yet; this only records whether you'd like them.",
  },
];

/** Each switch saves at once; a failed save puts the switch back. */
export function NotificationsCard({ preferences }: { preferences: NotificationPreferences }) {
  const { refreshUser } = useAuth();
  const [current, setCurrent] = useState<NotificationPreferences>(preferences);
  const [saving, setSaving] = useState(false);

  // The saved preferences change after refreshUser (or in another tab's session): follow them.
  useEffect(() => setCurrent(preferences), [preferences]);

  const toggle = async (key: PreferenceKey, checked: boolean) => {
    const previous = current;
    const next = { ...current, [key]: checked };
    setCurrent(next);
    setSaving(true);
    try {
      await updateNotifications(next);
      toast({ title: "Preferences Saved", description: "Your notification preferences have been updated." });
      await refreshUser();
    } catch (err) {
      setCurrent(previous);
      toast({
        variant: "destructive",
        title: "Error",
        description: errorMessage(err, "Failed to save notification preferences"),
      });
    } finally {
      setSaving(false);
    }
  };

  return (
    <Card>
      <CardHeader>
        <SectionTitle>Notifications</SectionTitle>
        <CardDescription>Choose which emails you receive. Changes are saved at once.</CardDescription>
      </CardHeader>
      <CardContent>
        <ul className="divide-y">
          {PREFERENCES.map(({ key, label, description }) => {
            const id = `notifications-${key}`;
            return (
              <li key={key} className="flex items-center justify-between gap-4 py-3 first:pt-0 last:pb-0">
                <div className="space-y-1">
                  <Label htmlFor={id}>{label}</Label>
                  <p id={`${id}-description`} className="text-sm text-muted-foreground">
                    {description}
                  </p>
                </div>
                <Switch
                  id={id}
                  aria-describedby={`${id}-description`}
                  checked={current[key]}
                  disabled={saving}
                  onCheckedChange={(checked) => void toggle(key, checked)}
                />
              </li>
            );
          })}
        </ul>
      </CardContent>
    </Card>
  );
}
