import { App, Button, Card, Form, Image, Result, Space, Spin, Upload } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useAccess } from '../../auth/access';
import { fetchPhoto, fetchRecord, photoSource, saveDriver, uploadPhoto } from '../../features/fleet/api';
import { fetchMeta } from '../../features/list/api';
import FieldInput from '../../features/list/FieldInput';
import { enumLabel, failedField, fieldTitle, rulesFor } from '../../features/list/model';
import type { EntityMeta, ListRecord } from '../../features/list/types';
import { validateName, validateNationalId, validatePhone } from '../../utils/validators';

const NAMESPACE = 'fleet:driver';
const FORM = ['name', 'phone', 'nationalId', 'licenceNo', 'licenceClass', 'licenceExpire', 'qualificationNo', 'state'];
const CHECKS: Record<string, (value: unknown) => string | undefined> = {
  name: validateName, phone: validatePhone, nationalId: validateNationalId,
};

/**
 * Platform-spec §2 driver edit (`?id=`; none: a new driver): the declared fields with console-spec §5's
 * validators (the server checks again and names the field it refuses), and the photo (uploaded first,
 * then saved with the driver as `photo`).
 */
export default function DriverEditScreen() {
  const { t } = useTranslation(['fleet', 'list', 'validation', 'common']);
  const { message, notification } = App.useApp();
  const { can } = useAccess();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const id = params.get('id') ? Number(params.get('id')) : null;
  const [form] = Form.useForm<Record<string, unknown>>();
  const [meta, setMeta] = useState<EntityMeta | null>(null);
  const [record, setRecord] = useState<ListRecord | null>(id === null ? {} : null);
  const [missing, setMissing] = useState(false);
  const [photo, setPhoto] = useState<{ id: number | null; src?: string }>({ id: null });
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    const controller = new AbortController();
    void fetchMeta('driver').then((reply) => {
      if (!controller.signal.aborted && reply.code === 0) setMeta(reply.data);
    });
    if (id !== null) {
      void fetchRecord('driver', id, controller.signal).then(async (reply) => {
        if (controller.signal.aborted) return;
        if (reply.code !== 0 || !reply.data) {
          setMissing(true);
          return;
        }
        setRecord(reply.data);
        const photoId = reply.data.photoId as number | null;
        if (photoId) {
          const image = await fetchPhoto(photoId, controller.signal);
          if (image.code === 0 && image.data) setPhoto({ id: photoId, src: photoSource(image.data) });
        }
      });
    }
    return () => controller.abort();
  }, [id]);

  if (missing) return <Result status="404" />;
  if (!meta || !record) return <Spin style={{ display: 'block', margin: 48 }} />;
  const fields = FORM.map((name) => meta.fields.find((f) => f.name === name)).filter((f) => f !== undefined);

  const upload = async (file: File) => {
    const reply = await uploadPhoto(file);
    if (reply.code === 0 && reply.data) {
      setPhoto({ id: reply.data.id, src: URL.createObjectURL(file) });
      void message.success(t('fleet:done.uploaded'));
    }
  };

  const save = async () => {
    let values: Record<string, unknown>;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    const body: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) continue;
      const text = typeof value === 'string' ? value.trim() : value;
      if (text !== '' || id !== null) body[name] = text === '' ? null : text;
    }
    if (photo.id !== ((record.photoId as number | null | undefined) ?? null)) body.photo = photo.id;
    setSaving(true);
    const reply = await saveDriver(id, body);
    setSaving(false);
    if (reply.code === 0) {
      void message.success(t('fleet:done.saved'));
      void navigate('/user/driver');
      return;
    }
    const field = failedField(reply.data, fields);
    if (field) form.setFields([{ name: field, errors: [reply.message] }]);
    else notification.error({ title: t('common:request.errorTitle'), description: reply.message });
  };

  const editable = can('driver', id === null ? 'add' : 'update');
  return (
    <Card title={t(id === null ? 'fleet:driverEdit.titleNew' : 'fleet:driverEdit.titleEdit')}
      extra={<Link to="/user/driver">{t('fleet:action.back')}</Link>} data-testid="driver-edit">
      <Form form={form} layout="vertical" style={{ maxWidth: 560 }} initialValues={record} disabled={!editable}>
        {fields.map((field) => {
          const title = fieldTitle(t, NAMESPACE, field);
          const rules = rulesFor(field, title, t);
          const check = CHECKS[field.name];
          if (check) {
            rules.push({ validator: (_rule, value) => {
              const key = check(value);
              return key ? Promise.reject(new Error(t(key))) : Promise.resolve();
            } });
          }
          return (
            <Form.Item key={field.name} name={field.name} label={title} rules={rules}
              extra={field.name === 'licenceExpire' ? 'YYYY-MM-DD' : undefined}>
              <FieldInput field={field} mode="form" testId={`driver-field-${field.name}`}
                optionLabel={(v) => enumLabel(t, NAMESPACE, field, v)} />
            </Form.Item>
          );
        })}
        <Form.Item label={t('fleet:driver.fields.photo')} extra={t('fleet:driverEdit.photoHint')}>
          <Space align="start">
            {photo.src && <Image src={photo.src} width={96} data-testid="driver-photo" />}
            <Upload accept="image/jpeg,image/png,image/webp" showUploadList={false}
              beforeUpload={(file) => {
                void upload(file);
                return false;
              }}>
              <Button data-testid="driver-photo-upload">{t('fleet:action.upload')}</Button>
            </Upload>
          </Space>
        </Form.Item>
        {editable && (
          <Button type="primary" loading={saving} onClick={() => void save()} data-testid="driver-save">
            {t('fleet:action.save')}
          </Button>
        )}
      </Form>
    </Card>
  );
}
