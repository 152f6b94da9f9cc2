import { PageHeader } from "@/app/shell/page-header";
import { useAuth } from "@/lib/auth";
import { DangerZoneCard } from "./components/danger-zone-card";
import { NotificationsCard } from "./components/notifications-card";
import { ProfileCard } from "./components/profile-card";
import { SecurityCard } from "./components/security-card";

export function SettingsPage() {
  const { user } = useAuth();
  // The sign-in guard renders this screen only with a user; the check keeps the types honest.
  if (!user) return null;
  return (
    <div className="max-w-3xl">
      <PageHeader title="Settings" subtitle="Manage your profile, password and notifications" />
      <div className="space-y-6">
        <ProfileCard user={user} />
        <SecurityCard />
        <NotificationsCard preferences={user.notifications} />
        <DangerZoneCard />
      </div>
    </div>
  );
}
