/**
 * antd's Descriptions with as many columns as its own width holds: ``max`` at most, none narrower than
 * ``minColumnWidth``. A column count chosen by the screen's width (antd's breakpoints) gave a card that
 * stands beside another on a wide screen four columns of ~160 px, and its values wrapped a character a
 * line beside their labels (an English label, a value with its unit); a label takes at most half its column.
 * An item that should fill its row says ``span="filled"``.
 */
import { Descriptions, type DescriptionsProps } from 'antd';
import { fitColumns, MIN_COLUMN_WIDTH } from './fitColumns';
import { useElementSize } from './useElementSize';

// A long label (an English one: "Calibration verification number (CVN)") wraps instead of leaving its value the
// width of a character or two.
const LABEL_AT_MOST_HALF = { label: { maxWidth: '50%' } };

export interface FitDescriptionsProps extends Omit<DescriptionsProps, 'column'> {
  max: number;
  minColumnWidth?: number;
}

export default function FitDescriptions({ max, minColumnWidth = MIN_COLUMN_WIDTH, ...props }: FitDescriptionsProps) {
  const [ref, { width }] = useElementSize<HTMLDivElement>();
  const columns = width > 0 ? fitColumns(width, max, minColumnWidth) : max;
  return (
    <div ref={ref} data-columns={columns}>
      <Descriptions styles={LABEL_AT_MOST_HALF} {...props} column={columns} />
    </div>
  );
}
