import { Modal, Spin } from 'antd';

/**
 * A dialog's frame, its title and a spinner, while its code loads (components/loadable.tsx): the click that opens
 * a dialog shows it at once.
 */
export default function LoadingDialog({ title, width, onClose }: { title: string; width: number; onClose: () => void }) {
  return (
    <Modal open title={title} onCancel={onClose} footer={null} width={width}>
      <Spin style={{ display: 'block', margin: 24 }} />
    </Modal>
  );
}
