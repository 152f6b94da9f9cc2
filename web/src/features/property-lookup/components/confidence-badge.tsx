import { cn } from "@/lib/utils";
import {
  CONFIDENCE_LABEL,
  CONFIDENCE_TONE_CLASSES,
  confidenceMeaning,
  confidencePercent,
  confidenceTone,
} from "../valuation-helpers";

/**
 * The confidence badge of the spec: the percentage and the fixed label 'High Confidence', coloured green, yellow or
 * red by level. The calibrated meaning is written under it (and in the badge's title), so a red "High Confidence"
 * badge still tells the truth about the estimate.
 */
export function ConfidenceBadge({ confidence }: { confidence: number }) {
  const percent = confidencePercent(confidence);
  const tone = confidenceTone(percent);
  const meaning = confidenceMeaning(confidence);
  return (
    <div className="space-y-1">
      <span
        data-testid="confidence-badge"
        data-tone={tone}
        title={`Confidence ${percent}%: ${meaning}`}
        className={cn(
          "inline-flex items-center gap-1.5 rounded-full border px-2.5 py-0.5 text-xs font-semibold",
          CONFIDENCE_TONE_CLASSES[tone],
        )}
      >
        <span className="tabular-nums">{percent}%</span>{" "}
        <span>{CONFIDENCE_LABEL}</span>
      </span>
      <p className="text-xs text-muted-foreground" data-testid="confidence-meaning">
        {meaning}
      </p>
    </div>
  );
}
