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

const PREFERENCES: { key: PreferenceKey; label: string; description: string }[] = [
  {
    key: "emailNotifications",
    label: "Email notifications",
    description: "Sign-in alerts and batch job results by email.",
  },
  { key: "usageAlerts", label: "Low balance alerts", description: "An email when your balance falls under 50 credits." },
  { key: "weeklyReports", label: "Weekly usage report", description: "A summary of your API usage every week." },
  { key: "marketingEmails", label: "Product news", description: "New features and improvements, now and then." },
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
