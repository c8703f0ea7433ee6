import { Col, Row } from 'antd';
import { useMemo, useState } from 'react';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';
import EnterpriseTree from '../../features/org/EnterpriseTree';

export const ENTITY = 'role';

/**
 * Platform-spec §2 "role": the roles of the selected enterprise (of the caller's whole subtree when
 * none is selected); a new role belongs to the selected enterprise. Its permissions are edited on the
 * detail screen (/user/role/detail).
 */
export default function RoleScreen() {
  const [selected, setSelected] = useState<number | undefined>();
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'org:role',
    query: selected === undefined ? undefined : { 'enterpriseId.eq': selected },
    createDefaults: selected === undefined ? undefined : { enterpriseId: selected },
    columns: ['id', 'name', 'code', 'description', 'enterpriseId', 'createTime'],
    form: ['name', 'code', 'description'],
    detail: (record) => `/user/role/detail?id=${String(record.id)}`,
  }), [selected]);
  return (
    <Row gutter={16} data-testid="role-screen">
      <Col xs={24} md={6}>
        <EnterpriseTree selected={selected} onSelect={setSelected} version={0} />
      </Col>
      <Col xs={24} md={18}>
        <ListPage key={String(selected)} screen={screen} />
      </Col>
    </Row>
  );
}
