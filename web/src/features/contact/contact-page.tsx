import type { ReactNode } from "react";
import type { LucideIcon } from "lucide-react";
import { Link } from "react-router";
import { BookOpen, Mail, MapPin, MessageCircle, MessageSquareText } from "lucide-react";
import { OFFICES } from "@/components/company-info";
import { PageIntro, PublicLayout } from "@/components/public-layout";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader } from "@/components/ui/card";
import { useOptionalUser } from "@/lib/auth";
import { useSite } from "@/lib/site";
import { ContactForm } from "./contact-form";

// The contact page (spec, product-and-account section 2): the message form, the support channels, the offices
// and a pointer to the Help Center. Public: no sign-in needed.
//
// It names only the channels that exist: email to the installation's support address (GET /api/site, where every
// form message is also mailed), the form, and (issue 27) the live chat of the signed-in dashboard, whose Support
// panel says whether the team is online. There is no phone line, so none is offered; the chat is for customers
// with an account, so a visitor is sent to sign in rather than promised a chat window here.

const FORM_ID = "send-us-a-message";

const sectionTitle = "text-xl font-semibold leading-none tracking-tight";

/** One way to reach the team. */
interface ChannelProps {
  icon: LucideIcon;
  title: string;
  detail: string;
  children: ReactNode;
}

function Channel({ icon: Icon, title, detail, children }: ChannelProps) {
  return (
    <li className="flex gap-3">
      <span className="flex h-9 w-9 shrink-0 items-center justify-center rounded-lg bg-primary/10 text-primary">
        <Icon className="h-4 w-4" aria-hidden="true" />
      </span>
      <div className="min-w-0">
        <h3 className="font-medium">{title}</h3>
        <p className="text-sm text-muted-foreground">{detail}</p>
        {children}
      </div>
    </li>
  );
}

/** The chat's office hours as this installation configures them (VALUATOR_SUPPORT_HOURS), once the server said them. */
function ChatHours() {
  const hours = useSite().data?.supportHours;
  return hours ? <p className="text-sm text-muted-foreground">Office hours: {hours}</p> : null;
}

/** The installation's support address, once the server has said it; never an address of the page's own. */
function SupportAddress() {
  const site = useSite();
  const email = site.data?.supportEmail;
  if (email) {
    return (
      <a
        href={`mailto:${email}`}
        data-testid="support-email"
        className="break-all text-sm font-medium text-primary underline-offset-4 hover:underline"
      >
        {email}
      </a>
    );
  }
  return (
    <p className="text-sm text-muted-foreground" data-testid="support-email-pending">
      {site.isError ? "The address could not be loaded: use the form on this page." : "Loading the address..."}
    </p>
  );
}

export function ContactPage() {
  const user = useOptionalUser();
  return (
    <PublicLayout>
      <div className="mx-auto max-w-6xl space-y-10 px-4 py-12 sm:px-6">
        <PageIntro title="Contact Us" subtitle="Get in touch with our team" />

        <div className="grid gap-8 lg:grid-cols-3">
          <Card className="lg:col-span-2">
            <CardHeader>
              <h2 id={FORM_ID} className={`${sectionTitle} scroll-mt-24`}>
                Send us a message
              </h2>
              <CardDescription>
                Fill out the form below and our team will get back to you within 24 hours.
              </CardDescription>
            </CardHeader>
            <CardContent>
              <ContactForm />
            </CardContent>
          </Card>

          <div className="space-y-6">
            <Card>
              <CardHeader>
                <h2 className={sectionTitle}>Get in touch</h2>
                <CardDescription>All reach the same team, who read every message.</CardDescription>
              </CardHeader>
              <CardContent>
                <ul className="space-y-5">
                  <Channel icon={Mail} title="Email Support" detail="Available 24/7; we reply within 24 hours.">
                    <SupportAddress />
                  </Channel>
                  <Channel
                    icon={MessageSquareText}
                    title="Contact Form"
                    detail="The form on this page: you get an email confirming we received it."
                  >
                    <a
                      href={`#${FORM_ID}`}
                      className="text-sm font-medium text-primary underline-offset-4 hover:underline"
                    >
                      Send us a message
                    </a>
                  </Channel>
                  <Channel
                    icon={MessageCircle}
                    title="Live Chat"
                    detail="For customers with an account: open Support in the dashboard to write to the team. It shows whether we're online now; outside office hours we reply there and by email."
                  >
                    <ChatHours />
                    <Link
                      to={user ? "/dashboard" : "/login"}
                      className="text-sm font-medium text-primary underline-offset-4 hover:underline"
                    >
                      {user ? "Open the dashboard" : "Sign in to chat"}
                    </Link>
                  </Channel>
                </ul>
              </CardContent>
            </Card>

            <Card>
              <CardHeader>
                <h2 className={sectionTitle}>Our offices</h2>
              </CardHeader>
              <CardContent>
                <ul className="space-y-5">
                  {OFFICES.map((o) => (
                    <li key={o.city} className="flex gap-3">
                      <MapPin className="mt-0.5 h-4 w-4 shrink-0 text-muted-foreground" aria-hidden="true" />
                      <div>
                        <h3 className="flex items-center gap-2 font-medium">
                          {o.city}
                          {o.hq ? <Badge variant="secondary">HQ</Badge> : null}
                        </h3>
                        <address className="text-sm not-italic text-muted-foreground">
                          {o.lines.map((line) => (
                            <span key={line} className="block">
                              {line}
                            </span>
                          ))}
                        </address>
                      </div>
                    </li>
                  ))}
                </ul>
              </CardContent>
            </Card>

            <Card>
              <CardHeader>
                <h2 className={sectionTitle}>Quick answers</h2>
                <CardDescription>
                  Credits, API keys, batch uploads and error codes: most questions are answered in our Help Center.
                </CardDescription>
              </CardHeader>
              <CardContent>
                <Button asChild variant="outline" className="w-full">
                  <Link to="/help-center">
                    <BookOpen aria-hidden="true" />
                    Visit Help Center
                  </Link>
                </Button>
              </CardContent>
            </Card>
          </div>
        </div>
      </div>
    </PublicLayout>
  );
}
