import { useSite } from "@/lib/site";
import { cn } from "@/lib/utils";

/**
 * The configured support address as a mailto link (GET /api/site). Until it is known, or when it cannot be read,
 * the text names the team without an address: a page never shows an address that may not be the installation's.
 * It is underlined: it sits in running text, where its colour alone would not set it apart (WCAG 1.4.1).
 */
export function SupportEmailLink({ className, fallback = "our support team" }: { className?: string; fallback?: string }) {
  const site = useSite();
  const email = site.data?.supportEmail;
  if (!email) return <span data-testid="support-email-pending">{fallback}</span>;
  return (
    <a href={`mailto:${email}`} className={cn("text-primary underline underline-offset-4 hover:decoration-2", className)}>
      {email}
    </a>
  );
}
