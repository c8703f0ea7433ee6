import { Button, Card, Col, Result, Row, Space, Spin, Tag } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useAccess } from '../../auth/access';
import { loadable } from '../../components/loadable';
import { HISTORY_LINKS, historyUrl } from '../../features/carDetail/age';
import { fetchCarDetail, type CarDetail } from '../../features/carDetail/api';
import { DevicesCard, DriverCard, PhotosCard, StateCard, TodayCard, VehicleCard } from '../../features/carDetail/DetailSections';
import { carDetailRouteName, carDetailUrl, routeNameOfPath } from '../../features/carDetail/routing';
import { closePage } from '../../layouts/tabs/events';
import { GbTerminalCard } from '../../features/command/GbTerminalCard';
import { VehicleControlCard } from '../../features/command/VehicleControlCard';
import { isObdRoute } from '../../features/carDetail/obd/obd';

// The new-energy and heavy-diesel cards (and their echarts) load only on those variants.
const cardsLoading = () => <Spin style={{ display: 'block', margin: 24 }} />;
const NevDetail = loadable(() => import('../../features/carDetail/nev/NevDetail').then((module) => module.default), cardsLoading);
const ObdDetail = loadable(() => import('../../features/carDetail/obd/ObdDetail').then((module) => module.default), cardsLoading);

const STALE_TAB_KEY = 'fleetwatch.carDetail.staleTab';

/**
 * Vehicle detail (route names carDetail and its protocol variants, query carId and
 * deviceId): one server read (`GET /api/car/{id}/detail.json`). Opened under the wrong variant for
 * the shown device's protocol, the page moves to the right one (platform-spec §2 car-detail): nevCarDetail adds
 * the GB/T 32960 state (features/carDetail/nev), g6CarDetail, hj1239CarDetail and db4403t363CarDetail their OBD
 * cards (features/carDetail/obd).
 */
export default function CarDetailScreen() {
  const { t } = useTranslation('detail');
  const { can } = useAccess();
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const carId = Number(params.get('carId'));
  const rawDevice = params.get('deviceId');
  const deviceId = rawDevice ? Number(rawDevice) : null;
  const [reply, setReply] = useState<{ key: string; detail: CarDetail | null; message?: string } | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const key = `${carId}:${deviceId ?? ''}`;
  const valid = Number.isSafeInteger(carId) && carId > 0;

  useEffect(() => {
    if (!valid) return undefined;
    const controller = new AbortController();
    void fetchCarDetail(carId, deviceId, controller.signal).then((answer) => {
      if (controller.signal.aborted) return;
      setNow(Date.now());
      setReply({ key, detail: answer.code === 0 ? answer.data : null, message: answer.localMessage ?? answer.message });
    });
    return () => controller.abort();
  }, [carId, deviceId, key, valid]);

  const detail = reply?.key === key ? reply.detail : undefined;
  const here = routeNameOfPath(location.pathname);
  const wanted = detail ? carDetailRouteName(detail.protocol) : null;
  // Under the wrong variant: open the right one once, and have it close this page's tab (kept-alive
  // pages render against their own tab's URL, so `from` is this tab's key; the handover goes through
  // session storage because a page's location carries no navigation state).
  const from = `${location.pathname}${location.search}`;
  const moved = useRef(false);
  useEffect(() => {
    if (!detail || !wanted || !here || wanted === here || moved.current) return;
    moved.current = true;
    sessionStorage.setItem(STALE_TAB_KEY, from);
    void navigate(carDetailUrl(detail.car.id, detail.deviceId, detail.protocol), { replace: true });
  }, [detail, wanted, here, navigate, from]);
  useEffect(() => {
    const stale = sessionStorage.getItem(STALE_TAB_KEY);
    if (!stale || stale === from) return;
    sessionStorage.removeItem(STALE_TAB_KEY);
    closePage(stale);
  }, [from]);

  if (!valid) return <Result status="404" title={t('missingCar')} />;
  if (reply?.key === key && !reply.detail) {
    return <Result status="404" title={t('notFound')} subTitle={reply.message} data-testid="detail-not-found" />;
  }
  if (!detail) return <Spin style={{ display: 'block', margin: 48 }} />;

  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid="car-detail" data-route={here ?? ''}>
      <Card
        size="small"
        title={
          <Space wrap>
            <span>{t('title')}</span>
            <Tag color="blue">{detail.car.plateNumber}</Tag>
          </Space>
        }
        extra={<Link to="/list/car">{t('links.back')}</Link>}
      >
        <Space wrap data-testid="detail-links">
          {can('gps', 'query') || can('gps', 'get')
            ? HISTORY_LINKS.map(([name, path]) => (
              <Link key={name} to={historyUrl(path, detail.car.id)} data-testid={`detail-link-${name}`}>
                <Button size="small">{t(`links.${name}`)}</Button>
              </Link>
            ))
            : null}
          <Link to={`/list/car/edit?id=${detail.car.id}`} data-testid="detail-link-devices">
            <Button size="small">{t('links.devices')}</Button>
          </Link>
        </Space>
      </Card>
      <VehicleCard detail={detail} />
      {here === 'nevCarDetail' && (
        <NevDetail carId={detail.car.id} deviceId={detail.deviceId} />
      )}
      <Row gutter={[12, 12]}>
        <Col xs={24} xl={14}><StateCard detail={detail} now={now} /></Col>
        <Col xs={24} xl={10}><TodayCard detail={detail} /></Col>
      </Row>
      {isObdRoute(here) && detail.deviceId != null && (
        <ObdDetail route={here} deviceId={detail.deviceId} since={detail.today.since} />
      )}
      {can('command', 'cmd') && detail.protocol === 'gb32960' && detail.deviceId != null && (
        <GbTerminalCard carId={detail.car.id} deviceId={detail.deviceId} plate={detail.car.plateNumber} />
      )}
      {can('command', 'cmd') && can('sensitiveCommand', 'cmd') && detail.protocol === 'jt808' && detail.deviceId != null && (
        <VehicleControlCard carId={detail.car.id} deviceId={detail.deviceId} plate={detail.car.plateNumber} />
      )}
      <DevicesCard detail={detail} />
      <Row gutter={[12, 12]}>
        <Col xs={24} md={10}><DriverCard detail={detail} /></Col>
        <Col xs={24} md={14}><PhotosCard detail={detail} canSee={can('driver', 'get')} /></Col>
      </Row>
    </Space>
  );
}
