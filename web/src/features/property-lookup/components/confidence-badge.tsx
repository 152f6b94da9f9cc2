import { cn } from "@/lib/utils";
import {
  CONFIDENCE_TONE_CLASSES,
  type ConfidenceLevel,
  confidenceLabel,
  confidenceMeaning,
  confidencePercent,
  confidenceTone,
} from "../valuation-helpers";

interface ConfidenceBadgeProps {
  confidence: number;
  level: ConfidenceLevel;
  fsd: number;
  withinTenPercent: number;
}

/**
 * The confidence badge: the percentage and the level the server gives ("87% High Confidence"), coloured by that
 * level, with the calibrated meaning written under it (and in the badge's title).
 */
export function ConfidenceBadge({ confidence, level, fsd, withinTenPercent }: ConfidenceBadgeProps) {
  const percent = confidencePercent(confidence);
  const tone = confidenceTone(level);
  const meaning = confidenceMeaning(fsd, withinTenPercent);
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
        <span>{confidenceLabel(level)}</span>
      </span>
      <p className="text-xs text-muted-foreground" data-testid="confidence-meaning">
        {meaning}
      </p>
    </div>
  );
}
