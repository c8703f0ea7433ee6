import { Spin } from 'antd';

export default function PageLoading() {
  return (
    <div style={{ display: 'flex', justifyContent: 'center', alignItems: 'center', minHeight: 240, width: '100%' }}>
      <Spin size="large" />
    </div>
  );
}
